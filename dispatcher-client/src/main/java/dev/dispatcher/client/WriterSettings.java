package dev.dispatcher.client;

import dev.dispatcher.domain.DeliveryTime;
import dev.dispatcher.sql.OutboxSql;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What the R2DBC and the JDBC writer share, so both write the same row the same way: the statements ({@link
 * OutboxSql#INSERT} and {@link OutboxSql#LOCK_KEY}, table names schema-qualified or not), the insert's parameters
 * for a message, the delivery-time rule with its clock and maximum delay, and the largest payload accepted
 * ({@link #DEFAULT_MAX_PAYLOAD_BYTES} by default, the service's {@code dispatcher.ingest.max-payload-size}). Immutable.
 */
record WriterSettings(String insert, String lockKey, Clock clock, Duration maxDelay, long maxPayloadBytes) {

    /** 1 MiB, as the service's HTTP ingest, which the service's producer is configured to fit. */
    static final long DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final String TABLE = "INSERT INTO outbox_message";

    /** One parameter of the insert: its value ({@code null} for SQL NULL) and the type a NULL is bound as. */
    record Parameter(Object value, Class<?> type) {
    }

    static WriterSettings unqualified() {
        return new WriterSettings(OutboxSql.INSERT, OutboxSql.LOCK_KEY, Clock.systemUTC(),
                DeliveryTime.DEFAULT_MAX_DELAY, DEFAULT_MAX_PAYLOAD_BYTES);
    }

    static WriterSettings forSchema(String schema) {
        if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be an unquoted lower-case PostgreSQL identifier, but was "
                    + (schema == null ? "null" : "'" + schema + "'"));
        }
        String insert = OutboxSql.INSERT.replace(TABLE, "INSERT INTO " + schema + ".outbox_message");
        if (insert.equals(OutboxSql.INSERT)) {
            throw new IllegalStateException("OutboxSql.INSERT no longer starts with " + TABLE);
        }
        return new WriterSettings(insert, OutboxSql.LOCK_KEY, Clock.systemUTC(), DeliveryTime.DEFAULT_MAX_DELAY,
                DEFAULT_MAX_PAYLOAD_BYTES);
    }

    WriterSettings withMaxDelay(Duration maxDelay) {
        if (maxDelay == null || maxDelay.isNegative() || maxDelay.isZero()) {
            throw new IllegalArgumentException("maxDelay must be positive, but was " + maxDelay);
        }
        return new WriterSettings(insert, lockKey, clock, maxDelay, maxPayloadBytes);
    }

    WriterSettings withClock(Clock clock) {
        return new WriterSettings(insert, lockKey, Objects.requireNonNull(clock, "clock"), maxDelay, maxPayloadBytes);
    }

    WriterSettings withMaxPayloadBytes(long maxPayloadBytes) {
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadSize must be positive, but was " + maxPayloadBytes);
        }
        return new WriterSettings(insert, lockKey, clock, maxDelay, maxPayloadBytes);
    }

    /**
     * The parameters {@code $1..$10} of the insert for {@code m}, in order.
     *
     * @throws PayloadTooLargeException when the payload is larger than {@link #maxPayloadBytes}
     * @throws IllegalArgumentException when the message's delivery time lies outside the allowed window
     *     ({@link DeliveryTime.InvalidDeliveryTimeException}, naming {@code deliverAt} or {@code delay})
     */
    List<Parameter> insertParameters(OutboxMessage m) {
        if (m.payloadUnsafe().length > maxPayloadBytes) {
            throw new PayloadTooLargeException(m, maxPayloadBytes);
        }
        long delayMillis = m.deliveryTime().delayMillis(clock.instant(), maxDelay);
        return Arrays.asList(
                new Parameter(m.id(), UUID.class),
                new Parameter(m.topic(), String.class),
                new Parameter(m.key(), String.class),
                new Parameter(m.type(), String.class),
                new Parameter(m.payloadUnsafe(), byte[].class),
                new Parameter(m.contentType(), String.class),
                new Parameter(m.headers().isEmpty() ? null : json(m.headers()), String.class),
                new Parameter(m.correlationId(), String.class),
                new Parameter(m.causationId(), String.class),
                // no delay binds NULL: the row is visible from its transaction's start, like any other
                new Parameter(delayMillis == 0 ? null : delayMillis, Long.class));
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
