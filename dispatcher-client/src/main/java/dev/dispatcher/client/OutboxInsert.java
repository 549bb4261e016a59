package dev.dispatcher.client;

import dev.dispatcher.domain.DeliveryTime;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;

/**
 * One message's insert as both writers send it ({@link OutboxWriter} over R2DBC, {@link JdbcOutboxWriter} over JDBC,
 * and the Spring writers through them): the key whose writer lock is taken first ({@link WriterSettings#lockKey()};
 * none for an unkeyed message), the parameters {@code $1..$10} of {@link WriterSettings#insert()} in order, and the
 * row it returns read back. Building it checks the payload against the writer's limit and the delivery time
 * against its window, so nothing is sent for a message that would be refused. Immutable.
 */
final class OutboxInsert {

    /** The types the parameters are bound as when NULL, in order. */
    private static final Class<?>[] TYPES = {UUID.class, String.class, String.class, String.class, byte[].class,
            String.class, String.class, String.class, String.class, Long.class};

    /** Binds one parameter of the insert: its position from 1, its value, or null and the type a NULL has. */
    @FunctionalInterface
    interface Binder<E extends Exception> {
        void bind(int position, Object value, Class<?> type) throws E;
    }

    /** Reads one column of the returned row as {@code type} (R2DBC's {@code Readable::get}, JDBC's {@code getObject}). */
    @FunctionalInterface
    interface Row<E extends Exception> {
        <T> T get(String column, Class<T> type) throws E;
    }

    private final String key;
    private final Object[] values;

    private OutboxInsert(String key, Object[] values) {
        this.key = key;
        this.values = values;
    }

    /**
     * The insert of {@code m} with {@code settings}' limits.
     *
     * @throws PayloadTooLargeException when the payload is larger than {@link WriterSettings#maxPayloadBytes()}
     * @throws IllegalArgumentException when the message's delivery time lies outside the allowed window
     *     ({@link DeliveryTime.InvalidDeliveryTimeException}, naming {@code deliverAt} or {@code delay})
     */
    static OutboxInsert of(WriterSettings settings, OutboxMessage m) {
        if (m.payloadUnsafe().length > settings.maxPayloadBytes()) {
            throw new PayloadTooLargeException(m, settings.maxPayloadBytes());
        }
        long delayMillis = m.deliveryTime().delayMillis(settings.clock().instant(), settings.maxDelay());
        return new OutboxInsert(m.key(), new Object[] {m.id(), m.topic(), m.key(), m.type(), m.payloadUnsafe(),
                m.contentType(), m.headers().isEmpty() ? null : json(m.headers()), m.correlationId(),
                m.causationId(),
                // no delay binds NULL: the row is visible from its transaction's start, like any other
                delayMillis == 0 ? null : delayMillis});
    }

    /** The key whose writer lock the insert must follow, or null when the message has none. */
    String key() {
        return key;
    }

    /** Binds {@code $1..$10} of the insert, in order. */
    <E extends Exception> void bind(Binder<E> binder) throws E {
        for (int i = 0; i < values.length; i++) {
            binder.bind(i + 1, values[i], TYPES[i]);
        }
    }

    /** The entry of the row the insert returned ({@code RETURNING id, seq, status, version, created_at, visible_after}). */
    static <E extends Exception> WrittenMessage entry(Row<E> row) throws E {
        return new WrittenMessage(row.get("id", UUID.class), row.get("seq", Long.class),
                row.get("status", String.class), row.get("version", Long.class),
                row.get("created_at", OffsetDateTime.class).toInstant(),
                row.get("visible_after", OffsetDateTime.class).toInstant());
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
