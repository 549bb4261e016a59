package dev.dispatcher.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes outbox rows on a JDBC connection the application already holds, inside its own transaction: the JDBC
 * twin of {@link OutboxWriter}, binding the same insert ({@code OutboxInsert}: statements, key lock, validation).
 * The business change and the message commit or roll back together; Dispatcher's relay publishes the row once it
 * is committed.
 *
 * <pre>{@code
 * JdbcOutboxWriter outbox = JdbcOutboxWriter.forSchema("dispatcher");
 * try (Connection tx = dataSource.getConnection()) {
 *     tx.setAutoCommit(false);
 *     insertOrder(tx, order);
 *     outbox.write(tx, OutboxMessage.builder("orders", "OrderPlaced").key(order.id()).jsonPayload(json).build());
 *     tx.commit();
 * }
 * }</pre>
 *
 * <p>Needs nothing but JDBC and the PostgreSQL driver; with Spring's transactions (JdbcTemplate,
 * {@code @Transactional}, JPA) use {@code dev.dispatcher.client.spring.SpringJdbcOutboxWriter}, which finds the
 * transaction's connection itself.
 *
 * <p>Keyed messages first take the key's transaction-scoped writer lock ({@code pg_advisory_xact_lock}), so rows
 * of one key commit in {@code seq} order; the lock is held until the transaction ends, so keep transactions that
 * write keyed messages short. The writer never begins, commits or rolls back, and never closes the connection. In
 * auto-commit mode each write commits on its own (the lock then covers only that statement), so atomicity with
 * the business change needs a transaction.
 *
 * <p>Errors: a payload above the writer's limit is a {@link PayloadTooLargeException} and a delivery time outside the
 * allowed window an {@code IllegalArgumentException} naming {@code deliverAt} or {@code delay}, both thrown before
 * anything is sent; a message id that already exists is an {@code
 * SQLException} with SQLState {@code 23505}, which aborts the transaction (roll back). Thread-safe and stateless;
 * a connection must not be used by two threads at once.
 */
public final class JdbcOutboxWriter {

    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");
    private static final Map<Class<?>, Integer> NULL_TYPES = Map.of(
            UUID.class, Types.OTHER, String.class, Types.VARCHAR, byte[].class, Types.BINARY, Long.class, Types.BIGINT);

    private final WriterSettings settings;
    private final String insert;
    private final String lockKey;

    private JdbcOutboxWriter(WriterSettings settings) {
        this.settings = settings;
        this.insert = positional(settings.insert());
        this.lockKey = positional(settings.lockKey());
    }

    /** A writer with unqualified table names: the connection's {@code search_path} finds Dispatcher's schema. */
    public static JdbcOutboxWriter create() {
        return new JdbcOutboxWriter(WriterSettings.unqualified());
    }

    /**
     * A writer whose statements name {@code schema} explicitly ({@code dispatcher.schema} of the service).
     *
     * @throws IllegalArgumentException when {@code schema} is not an unquoted lower-case PostgreSQL identifier
     */
    public static JdbcOutboxWriter forSchema(String schema) {
        return new JdbcOutboxWriter(WriterSettings.forSchema(schema));
    }

    /**
     * This writer with another maximum delay for {@code deliverAt}/{@code delay} (default 7 days).
     *
     * @throws IllegalArgumentException when {@code maxDelay} is not positive
     */
    public JdbcOutboxWriter withMaxDelay(Duration maxDelay) {
        return new JdbcOutboxWriter(settings.withMaxDelay(maxDelay));
    }

    /**
     * This writer with another payload limit (default 1 MiB, the service's {@code dispatcher.ingest.max-payload-size}):
     * a larger payload is refused with {@link PayloadTooLargeException}, naming the limit and the size, before
     * anything is sent. Keep it within what the service's producer and the brokers accept ({@code max.request.size},
     * {@code message.max.bytes}), or the relay dead-letters the row as too large.
     *
     * @throws IllegalArgumentException when {@code maxPayloadBytes} is not positive
     */
    public JdbcOutboxWriter withMaxPayloadSize(long maxPayloadBytes) {
        return new JdbcOutboxWriter(settings.withMaxPayloadBytes(maxPayloadBytes));
    }

    /** This writer with another clock for turning a {@code deliverAt} into a delay (tests). */
    public JdbcOutboxWriter withClock(Clock clock) {
        return new JdbcOutboxWriter(settings.withClock(clock));
    }

    /**
     * Writes {@code message} on {@code tx}, taking its key's writer lock first when it has a key; blocks while
     * another transaction holds that lock.
     *
     * @param tx a connection inside the application's transaction
     * @return the row as written; it becomes visible to the relay when {@code tx} commits
     * @throws SQLException when the database refuses the write
     */
    public WrittenMessage write(Connection tx, OutboxMessage message) throws SQLException {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(message, "message");
        OutboxInsert outboxInsert = OutboxInsert.of(settings, message);
        if (outboxInsert.key() != null) {
            try (PreparedStatement lock = tx.prepareStatement(lockKey)) {
                lock.setString(1, outboxInsert.key());
                lock.executeQuery().close();
            }
        }
        try (PreparedStatement statement = tx.prepareStatement(insert)) {
            outboxInsert.bind((position, value, type) -> {
                if (value == null) {
                    statement.setNull(position, NULL_TYPES.get(type));
                } else {
                    statement.setObject(position, value);
                }
            });
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return OutboxInsert.entry(row::getObject);
            }
        }
    }

    /**
     * {@code sql} with PostgreSQL's {@code $n} placeholders as JDBC's {@code ?}. The statements keep {@code $n}
     * (R2DBC binds them directly); each parameter must appear once, in order, which holds for the two this writer
     * uses and is checked here, so a statement changed otherwise fails when the writer is built, not when bound.
     */
    static String positional(String sql) {
        Matcher m = PARAMETER.matcher(sql);
        StringBuilder out = new StringBuilder();
        int expected = 1;
        while (m.find()) {
            if (Integer.parseInt(m.group(1)) != expected) {
                throw new IllegalStateException("parameter $" + m.group(1) + " found where $" + expected
                        + " was expected: JDBC binds parameters by position, so each must appear once, in order");
            }
            expected++;
            m.appendReplacement(out, "?");
        }
        return m.appendTail(out).toString();
    }
}
