package dev.dispatcher.client;

import dev.dispatcher.domain.DeliveryTime;
import dev.dispatcher.sql.OutboxSql;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A writer's settings, the same for the R2DBC and the JDBC writer: the statements ({@link OutboxSql#INSERT} and
 * {@link OutboxSql#LOCK_KEY}, table names schema-qualified or not), the clock and maximum delay of the
 * delivery-time rule, and the largest payload accepted ({@link #DEFAULT_MAX_PAYLOAD_BYTES} by default, the service's
 * {@code dispatcher.ingest.max-payload-size}). What a message binds is {@link OutboxInsert}'s. Immutable.
 */
record WriterSettings(String insert, String lockKey, Clock clock, Duration maxDelay, long maxPayloadBytes) {

    /** 1 MiB, as the service's HTTP ingest, which the service's producer is configured to fit. */
    static final long DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final String TABLE = "INSERT INTO outbox_message";

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
}
