package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageId;
import java.util.Map;
import java.util.Objects;

/**
 * A received record to store in the inbox.
 *
 * @param id the deduplication id
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param key record key, may be null
 * @param eventType the {@code event-type} header, may be null
 * @param headers the record's headers
 * @param payload record value
 */
public record InboxRecord(MessageId id, String topic, int partition, long offset, String key, String eventType,
        Map<String, String> headers, byte[] payload) {

    public InboxRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        headers = Map.copyOf(headers);
    }
}
