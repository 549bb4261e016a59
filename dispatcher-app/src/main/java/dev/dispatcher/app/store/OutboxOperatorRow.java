package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import io.r2dbc.spi.Readable;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * An outbox row with every column an operator sees ({@code OutboxSql.FIND} and the mutations' {@code RETURNING});
 * headers as their JSON text.
 */
public record OutboxOperatorRow(UUID id, long seq, String topic, String key, String type, byte[] payload,
        String contentType, String headersJson, String correlationId, String causationId, MessageStatus status,
        int attempts, Instant visibleAfter, String leaseOwner, UUID leaseToken, Instant leaseUntil, long version,
        Instant createdAt, Instant lastAttemptAt, Instant deliveredAt, Instant deadLetteredAt, String lastError)
        implements OperatorRow {

    static OutboxOperatorRow of(Readable row) {
        return new OutboxOperatorRow(row.get("id", UUID.class), row.get("seq", Long.class),
                row.get("topic", String.class), row.get("message_key", String.class), row.get("event_type", String.class),
                row.get("payload", byte[].class), row.get("content_type", String.class),
                row.get("headers", String.class), row.get("correlation_id", String.class),
                row.get("causation_id", String.class), MessageStatus.parse(row.get("status", String.class)),
                row.get("attempts", Integer.class), row.get("visible_after", Instant.class),
                row.get("lease_owner", String.class), row.get("lease_token", UUID.class),
                row.get("lease_until", Instant.class), row.get("version", Long.class),
                row.get("created_at", Instant.class), row.get("last_attempt_at", Instant.class),
                row.get("delivered_at", Instant.class), row.get("dead_lettered_at", Instant.class),
                row.get("last_error", String.class));
    }

    @Override
    public Map<String, Object> auditState() {
        return OperatorRow.state(status, version, attempts, visibleAfter, leaseOwner, leaseToken, leaseUntil,
                lastError);
    }
}
