package dev.dispatcher.client.spring;

import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.OutboxWriter;
import dev.dispatcher.client.WrittenMessage;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Objects;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;

/**
 * Writes outbox rows in the application's current reactive Spring transaction ({@code @Transactional} on a
 * method returning {@code Mono}/{@code Flux}, or a {@code TransactionalOperator}, over an {@code
 * R2dbcTransactionManager}): the row commits or rolls back with the transaction's other writes.
 *
 * <pre>{@code
 * @Transactional
 * public Mono<Void> placeOrder(Order order) {
 *     return orders.save(order)
 *             .then(outbox.write(OutboxMessage.builder("orders", "OrderPlaced").key(order.id())
 *                     .jsonPayload(json).build()))
 *             .then();
 * }
 * }</pre>
 *
 * <p>It takes the transaction's connection as {@link DatabaseClient} does and writes with {@link OutboxWriter}:
 * same statements, same key lock, same validation. A write outside a transaction fails with {@link
 * IllegalTransactionStateException}: the row would commit on its own. Database errors arrive as Spring's {@code
 * DataAccessException}s; a payload above the writer's limit as a {@code PayloadTooLargeException}, before anything is
 * sent. Lazy and non-blocking; thread-safe.
 *
 * <p>Needs spring-r2dbc and spring-tx, optional dependencies of the client; the Spring Boot starter creates one
 * when the application has an R2DBC {@code ConnectionFactory}.
 */
public final class SpringR2dbcOutboxWriter {

    private final DatabaseClient database;
    private final OutboxWriter writer;

    /**
     * A writer on {@code connectionFactory}, the one the transaction manager manages.
     *
     * @param writer the statements and settings ({@link OutboxWriter#forSchema(String)})
     */
    public SpringR2dbcOutboxWriter(ConnectionFactory connectionFactory, OutboxWriter writer) {
        this.database = DatabaseClient.create(Objects.requireNonNull(connectionFactory, "connectionFactory"));
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    /**
     * Writes {@code message} in the current transaction, taking its key's writer lock first when it has a key.
     *
     * @return the row as written; it becomes visible to the relay when the transaction commits
     */
    public Mono<WrittenMessage> write(OutboxMessage message) {
        Objects.requireNonNull(message, "message");
        return TransactionSynchronizationManager.forCurrentTransaction()
                .onErrorResume(NoTransactionException.class, e -> Mono.empty())
                .filter(TransactionSynchronizationManager::isActualTransactionActive)
                .switchIfEmpty(Mono.error(() -> new IllegalTransactionStateException("no transaction is active: an"
                        + " outbox row must be written in the transaction of the change it announces"
                        + " (@Transactional or a TransactionalOperator)")))
                .then(database.inConnection(connection -> writer.write(connection, message)));
    }
}
