package dev.dispatcher.client;

import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
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
 * that write keyed messages short.
 *
 * <p>The writer never begins, commits or rolls back: that is the caller's. It does not require a transaction
 * (in auto-commit each write commits on its own), but atomicity with the business change needs one. Tables are
 * unqualified by default (the connection's {@code search_path} must include Dispatcher's schema), or qualified
 * with {@link #forSchema(String)}.
 *
 * <p>Errors arrive as {@code R2dbcException} signals: a message id that already exists fails with
 * {@code R2dbcDataIntegrityViolationException} (the application's transaction is then aborted and must roll
 * back). Lazy: nothing runs until subscription. Thread-safe and stateless; one instance can serve the whole
 * application. A connection must not be used by two writes at once (R2DBC connections are not concurrent).
 */
public final class OutboxWriter {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final String insert;
    private final String lockKey;

    private OutboxWriter(String insert, String lockKey) {
        this.insert = insert;
        this.lockKey = lockKey;
    }

    /** A writer with unqualified table names: the connection's {@code search_path} finds Dispatcher's schema. */
    public static OutboxWriter create() {
        return new OutboxWriter(OutboxSql.INSERT, OutboxSql.LOCK_KEY);
    }

    /**
     * A writer whose statements name {@code schema} explicitly ({@code dispatcher.schema} of the service).
     *
     * @throws IllegalArgumentException when {@code schema} is not an unquoted lower-case PostgreSQL identifier
     */
    public static OutboxWriter forSchema(String schema) {
        if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be an unquoted lower-case PostgreSQL identifier, but was "
                    + (schema == null ? "null" : "'" + schema + "'"));
        }
        String insert = OutboxSql.INSERT.replace("INSERT INTO outbox_message", "INSERT INTO " + schema + ".outbox_message");
        if (insert.equals(OutboxSql.INSERT)) {
            throw new IllegalStateException("OutboxSql.INSERT no longer starts with INSERT INTO outbox_message");
        }
        return new OutboxWriter(insert, OutboxSql.LOCK_KEY);
    }

    /**
     * Writes {@code message} on {@code tx}, taking its key's writer lock first when it has a key.
     *
     * @param tx a connection inside the application's transaction
     * @return the row as written; it becomes visible to the relay when {@code tx} commits
     */
    public Mono<OutboxEntry> write(Connection tx, OutboxMessage message) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(message, "message");
        return Mono.defer(() -> {
            Mono<Void> lock = message.key() == null ? Mono.empty()
                    : Flux.from(tx.createStatement(lockKey).bind("$1", message.key()).execute())
                            .flatMap(result -> result.map(row -> 1)).then();
            return lock.then(Flux.from(bindInsert(tx.createStatement(insert), message).execute())
                    .flatMap(result -> result.map(OutboxWriter::entry))
                    .single());
        });
    }

    private static Statement bindInsert(Statement s, OutboxMessage m) {
        bindNullable(s, "$1", m.id(), UUID.class);
        s.bind("$2", m.topic());
        bindNullable(s, "$3", m.key(), String.class);
        s.bind("$4", m.type());
        s.bind("$5", m.payloadUnsafe());
        s.bind("$6", m.contentType());
        bindNullable(s, "$7", m.headers().isEmpty() ? null : json(m.headers()), String.class);
        bindNullable(s, "$8", m.correlationId(), String.class);
        bindNullable(s, "$9", m.causationId(), String.class);
        return s;
    }

    private static <T> void bindNullable(Statement s, String name, T value, Class<T> type) {
        if (value == null) {
            s.bindNull(name, type);
        } else {
            s.bind(name, value);
        }
    }

    private static OutboxEntry entry(Readable row) {
        Object created = row.get("created_at");
        Instant createdAt = created instanceof OffsetDateTime odt ? odt.toInstant()
                : created instanceof Instant i ? i : null;
        return new OutboxEntry(row.get("id", UUID.class), row.get("seq", Long.class), row.get("status", String.class),
                row.get("version", Long.class), createdAt);
    }

    /** The headers as a JSON object of strings. */
    static String json(Map<String, String> headers) {
        StringBuilder out = new StringBuilder("{");
        headers.forEach((name, value) -> {
            if (out.length() > 1) {
                out.append(',');
            }
            quote(out, name).append(':');
            quote(out, value);
        });
        return out.append('}').toString();
    }

    private static StringBuilder quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }
}
