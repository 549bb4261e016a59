package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import io.r2dbc.spi.Readable;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * An inbox row with every column an operator sees ({@code InboxSql}'s entry columns: the dead-letter page, the
 * locked read and the replay's {@code RETURNING}); headers as their JSON text, the value only by its size.
 *
 * @param key the text key, or null
 * @param keyBytes the bytes of a key that is not text, or null
 * @param payloadSize the value's length in bytes, or null when it was not stored (V5)
 */
public record InboxEntry(String consumer, String messageId, long seq, String sourceTopic, int partition,
        long offset, String key, byte[] keyBytes, String eventType, String headersJson, Integer payloadSize,
        MessageStatus status, int attempts, Instant visibleAfter, String leaseOwner, UUID leaseToken,
        Instant leaseUntil, long version, Instant receivedAt, Instant lastAttemptAt, Instant completedAt,
        Instant deadLetteredAt, String lastError) implements OperatorRow {

    static InboxEntry of(Readable row) {
        return new InboxEntry(row.get("consumer_name", String.class), row.get("message_id", String.class),
                row.get("seq", Long.class), row.get("source_topic", String.class),
                row.get("source_partition", Integer.class), row.get("source_offset", Long.class),
                row.get("message_key", String.class), row.get("message_key_bytes", byte[].class),
                row.get("event_type", String.class), row.get("headers", String.class),
                row.get("payload_size", Integer.class), MessageStatus.parse(row.get("status", String.class)),
                row.get("attempts", Integer.class), row.get("visible_after", Instant.class),
                row.get("lease_owner", String.class), row.get("lease_token", UUID.class),
                row.get("lease_until", Instant.class), row.get("version", Long.class),
                row.get("created_at", Instant.class), row.get("last_attempt_at", Instant.class),
                row.get("completed_at", Instant.class), row.get("dead_lettered_at", Instant.class),
                row.get("last_error", String.class));
    }

    /** Whether the record's value is stored; a row without it cannot be replayed. */
    public boolean payloadStored() {
        return payloadSize != null;
    }

    @Override
    public Map<String, Object> auditState() {
        return OperatorRow.state(status, version, attempts, visibleAfter, leaseOwner, leaseToken, leaseUntil,
                lastError);
    }

    /** A row whose value was not stored is never replayed: there is nothing to hand the handler. */
    @Override
    public String refusal(MessageStatus target) {
        return target == MessageStatus.PENDING && !payloadStored()
                ? "cannot be replayed: its value was not stored (see its last error); re-publish the record from "
                        + sourceTopic + "/" + partition + "@" + offset + " instead"
                : null;
    }
}
