package dev.dispatcher.boot.shop;

import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.WrittenMessage;
import dev.dispatcher.client.spring.SpringJdbcOutboxWriter;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Saves an order with JPA and announces it through the outbox, in one {@code @Transactional} method. */
@Service
public class Checkout {

    private final EntityManager orders;
    private final SpringJdbcOutboxWriter outbox;

    public Checkout(EntityManager orders, SpringJdbcOutboxWriter outbox) {
        this.orders = orders;
        this.outbox = outbox;
    }

    /** Saves the order and writes {@code OrderPlaced}; {@code failAfterWrite} then throws, rolling both back. */
    @Transactional
    public WrittenMessage place(String orderId, boolean failAfterWrite) {
        orders.persist(new PurchaseOrder(orderId, new BigDecimal("42.50")));
        orders.flush();
        WrittenMessage entry = outbox.write(OutboxMessage.builder("orders", "OrderPlaced").key(orderId)
                .jsonPayload("{\"orderId\":\"" + orderId + "\"}").build());
        if (failAfterWrite) {
            throw new IllegalStateException("payment declined after the outbox write");
        }
        return entry;
    }
}
