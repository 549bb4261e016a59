package dev.dispatcher.client;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes outbox rows on a connection the application already holds, inside its own transaction, so the business
 * change and the message commit or roll back together; Dispatcher's relay publishes the row once it is committed.
 *
 * <pre>{@code
 * OutboxWriter outbox = OutboxWriter.create();
 * Mono.usingWhen(connectionFactory.create(),
 *         tx -> Mono.from(tx.beginTransaction())
 *                 .then(insertOrder(tx, order))
 *                 .then(outbox.write(tx, OutboxMessage.builder("orders", "OrderPlaced")
 *                         .key(order.id()).jsonPayload(json).build()))
 *                 .flatMap(entry -> Mono.from(tx.commitTransaction()).thenReturn(entry)),
 *         Connection::close, (tx, e) -> Mono.from(tx.rollbackTransaction()).then(Mono.from(tx.close())),
 *         Connection::close);
 * }</pre>
 *
 * <p>Keyed messages first take the key's transaction-scoped writer lock ({@code pg_advisory_xact_lock}), so rows
 * of one key commit in {@code seq} order and the relay sends them in the order they were written; writers of
 * other keys are never blocked. The lock is held until the application's transaction ends: keep transactions
 * that write keyed messages short. The lock is on the key whatever the topic: the relay's unit of order is {@code
 * (topic, key)} by default and the key with {@code dispatcher.relay.ordering=per-key-across-topics}, and a key's rows
 * committing in {@code seq} order across all topics is what the second needs and implies what the first does
 * (see {@code OutboxSql.LOCK_KEY} and docs/design.md, "Ordering contract").
 *
 * <p>The writer never begins, commits or rolls back: that is the caller's. It does not require a transaction
 * (in auto-commit each write commits on its own), but atomicity with the business change needs one. Tables are
 * unqualified by default (the connection's {@code search_path} must include Dispatcher's schema), or qualified
 * with {@link #forSchema(String)}.
 *
 * <p>A message with a delivery time ({@link OutboxMessage.Builder#deliverAt}, {@link OutboxMessage.Builder#delay})
 * is checked against this writer's clock and maximum delay ({@link #withMaxDelay}, default 7 days) when written,
 * and stored as a delay the database adds to its own clock ({@code visible_after}).
 *
 * <p>Errors arrive as signals: a payload above the writer's limit as a {@link PayloadTooLargeException} and a delivery
 * time outside the allowed window as an {@code IllegalArgumentException} naming {@code deliverAt} or {@code delay},
 * both before anything is sent; database errors as {@code R2dbcException}s.
 * A message id that already exists fails with {@code R2dbcDataIntegrityViolationException} (the application's
 * transaction is then aborted and must roll back). {@link JdbcOutboxWriter} writes the same rows over JDBC. Lazy: nothing runs until subscription. Thread-safe and stateless; one instance can serve the whole
 * application. A connection must not be used by two writes at once (R2DBC connections are not concurrent).
 */
public final class OutboxWriter {

    private final WriterSettings settings;

    private OutboxWriter(WriterSettings settings) {
        this.settings = settings;
    }

    /** A writer with unqualified table names: the connection's {@code search_path} finds Dispatcher's schema. */
    public static OutboxWriter create() {
        return new OutboxWriter(WriterSettings.unqualified());
    }

    /**
     * A writer whose statements name {@code schema} explicitly ({@code dispatcher.schema} of the service).
     *
     * @throws IllegalArgumentException when {@code schema} is not an unquoted lower-case PostgreSQL identifier
     */
    public static OutboxWriter forSchema(String schema) {
        return new OutboxWriter(WriterSettings.forSchema(schema));
    }

    /**
     * This writer with another maximum delay for {@code deliverAt}/{@code delay} (default 7 days).
     *
     * @throws IllegalArgumentException when {@code maxDelay} is not positive
     */
    public OutboxWriter withMaxDelay(Duration maxDelay) {
        return new OutboxWriter(settings.withMaxDelay(maxDelay));
    }

    /**
     * This writer with another payload limit (default 1 MiB, the service's {@code dispatcher.ingest.max-payload-size}):
     * a larger payload is refused with {@link PayloadTooLargeException}, naming the limit and the size, before
     * anything is sent. Keep it within what the service's producer and the brokers accept ({@code max.request.size},
     * {@code message.max.bytes}), or the relay dead-letters the row as too large.
     *
     * @throws IllegalArgumentException when {@code maxPayloadBytes} is not positive
     */
    public OutboxWriter withMaxPayloadSize(long maxPayloadBytes) {
        return new OutboxWriter(settings.withMaxPayloadBytes(maxPayloadBytes));
    }

    /** This writer with another clock for turning a {@code deliverAt} into a delay (tests). */
    public OutboxWriter withClock(Clock clock) {
        return new OutboxWriter(settings.withClock(clock));
    }

    /**
     * Writes {@code message} on {@code tx}, taking its key's writer lock first when it has a key.
     *
     * @param tx a connection inside the application's transaction
     * @return the row as written; it becomes visible to the relay when {@code tx} commits
     */
    public Mono<WrittenMessage> write(Connection tx, OutboxMessage message) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(message, "message");
        return Mono.defer(() -> {
            OutboxInsert insert = OutboxInsert.of(settings, message);
            Mono<Void> lock = insert.key() == null ? Mono.empty()
                    : Flux.from(tx.createStatement(settings.lockKey()).bind("$1", insert.key()).execute())
                            .flatMap(result -> result.map(row -> 1)).then();
            Statement statement = tx.createStatement(settings.insert());
            insert.bind((position, value, type) -> {
                if (value == null) {
                    statement.bindNull("$" + position, type);
                } else {
                    statement.bind("$" + position, value);
                }
            });
            return lock.then(Flux.from(statement.execute())
                    .flatMap(result -> result.map(row -> OutboxInsert.entry(row::get)))
                    .single());
        });
    }
}
