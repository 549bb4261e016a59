package dev.dispatcher.client.spring;

import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.WrittenMessage;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Writes outbox rows in the application's current Spring-managed transaction: {@code @Transactional} or a
 * {@code TransactionTemplate} over a {@code DataSourceTransactionManager} (JdbcTemplate) or a {@code
 * JpaTransactionManager} (JPA, whose transaction exposes its JDBC connection). The row commits or rolls back with
 * the transaction's other writes; Dispatcher's relay publishes it once committed.
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.save(order);                                   // JPA or JdbcTemplate
 *     outbox.write(OutboxMessage.builder("orders", "OrderPlaced").key(order.id()).jsonPayload(json).build());
 * }
 * }</pre>
 *
 * <p>It takes the transaction's connection as JdbcTemplate does ({@code DataSourceUtils}) and writes with {@link
 * JdbcOutboxWriter}: same statements, same key lock (held until the transaction ends), same validation. A write
 * outside a transaction is refused with {@link IllegalTransactionStateException}: the row would commit on its
 * own, apart from the business change it announces. Database errors arrive as Spring's {@link
 * DataAccessException}s (an id that already exists: {@code DuplicateKeyException}); a payload above the writer's
 * limit as a {@code PayloadTooLargeException} and a delivery time outside the allowed window as an {@code
 * IllegalArgumentException} naming {@code deliverAt} or {@code delay}, both before anything is sent. Thread-safe.
 *
 * <p>Needs spring-jdbc and spring-tx, optional dependencies of the client; the Spring Boot starter creates one
 * when the application has a {@code DataSource}.
 */
public final class SpringJdbcOutboxWriter {

    private final JdbcTemplate jdbc;
    private final JdbcOutboxWriter writer;

    /**
     * A writer on {@code dataSource}, the one the transaction manager manages.
     *
     * @param writer the statements and settings ({@link JdbcOutboxWriter#forSchema(String)})
     */
    public SpringJdbcOutboxWriter(DataSource dataSource, JdbcOutboxWriter writer) {
        this.jdbc = new JdbcTemplate(Objects.requireNonNull(dataSource, "dataSource"));
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    /**
     * Writes {@code message} in the current transaction, taking its key's writer lock first when it has a key.
     *
     * @return the row as written; it becomes visible to the relay when the transaction commits
     * @throws IllegalTransactionStateException when no transaction is active
     */
    public WrittenMessage write(OutboxMessage message) {
        Objects.requireNonNull(message, "message");
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalTransactionStateException("no transaction is active: an outbox row must be written in"
                    + " the transaction of the change it announces (@Transactional or a TransactionTemplate)");
        }
        return jdbc.execute((ConnectionCallback<WrittenMessage>) connection -> writer.write(connection, message));
    }
}
