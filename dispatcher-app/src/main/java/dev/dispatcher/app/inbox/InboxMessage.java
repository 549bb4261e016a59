package dev.dispatcher.app.inbox;

import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.domain.MessageHeaders;
import dev.dispatcher.domain.MessageId;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * A stored inbox record as a handler sees it.
 *
 * @param consumer the consumer that took it in
 * @param id the message id (a CloudEvent's id, else the {@code message-id} header, else {@code
 *     topic-partition-offset}); also the webhook's {@code Idempotency-Key}
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param key the record key when it is text (UTF-8 without NUL), else null
 * @param keyBytes the record key's bytes when it is not text (an Avro key in Confluent's wire format, say), else
 *     null; {@link #rawKey()} gives the key as received in either case
 * @param eventType the {@code event-type} header, else a CloudEvent's type; may be null
 * @param headers the record's headers (UTF-8 text)
 * @param payload record value
 * @param attempt this attempt, counting from 1
 * @param receivedAt database time the record was stored
 */
public record InboxMessage(
        String consumer,
        MessageId id,
        String topic,
        int partition,
        long offset,
        String key,
        byte[] keyBytes,
        String eventType,
        Map<String, String> headers,
        byte[] payload,
        int attempt,
        Instant receivedAt) {

    public InboxMessage {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payload, "payload");
        headers = Map.copyOf(headers);
    }

    /** The message of a claimed row. */
    static InboxMessage of(ClaimedInboxMessage row) {
        return new InboxMessage(row.consumer(), row.leased().id(), row.topic(), row.partition(), row.offset(),
                row.key(), row.keyBytes(), row.eventType(), row.headers(), row.payload(), row.leased().attempts(),
                row.receivedAt());
    }

    /** The key as received (a text key's UTF-8 bytes), or null for a record without a key. */
    public byte[] rawKey() {
        return keyBytes != null ? keyBytes.clone() : key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    }

    /** The {@code content-type} header, else {@code application/json}. */
    public String contentType() {
        return headers.getOrDefault(MessageHeaders.CONTENT_TYPE, "application/json");
    }
}
