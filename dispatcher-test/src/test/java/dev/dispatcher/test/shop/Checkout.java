package dev.dispatcher.test.shop;

import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.WrittenMessage;
import dev.dispatcher.client.spring.SpringJdbcOutboxWriter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Saves an order and announces it through the outbox, in one {@code @Transactional} method. */
@Service
public class Checkout {

    private final JdbcTemplate orders;
    private final SpringJdbcOutboxWriter outbox;

    public Checkout(JdbcTemplate orders, SpringJdbcOutboxWriter outbox) {
        this.orders = orders;
        this.outbox = outbox;
    }

    /** Saves order {@code orderId} and writes its {@code OrderPlaced} message. */
    @Transactional
    public WrittenMessage place(String orderId) {
        orders.update("INSERT INTO shop_order (id, status) VALUES (?, 'PLACED')", orderId);
        return outbox.write(OutboxMessage.builder("orders", "OrderPlaced").key(orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\"}").build());
    }
}
