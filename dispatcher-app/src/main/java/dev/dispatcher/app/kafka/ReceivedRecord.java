package dev.dispatcher.app.kafka;

import dev.dispatcher.domain.MessageHeaders;
import dev.dispatcher.domain.MessageId;
import java.util.Map;
import java.util.Objects;

/**
 * A Kafka record as the receiver adapter hands it over, free of client types.
 *
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param key record key, may be null
 * @param headers headers decoded as UTF-8 (the last value wins for a repeated name)
 * @param payload record value, empty for a null value
 */
public record ReceivedRecord(
        String topic, int partition, long offset, String key, Map<String, String> headers, byte[] payload) {

    public ReceivedRecord {
        Objects.requireNonNull(topic, "topic");
        headers = Map.copyOf(headers);
        payload = payload == null ? new byte[0] : payload;
    }

    /**
     * The deduplication id: the {@code message-id} header when it is a valid id, else {@code
     * <topic>-<partition>-<offset>} (stable for redeliveries of this record, but not across re-publications).
     */
    public MessageId messageId() {
        String header = headers.get(MessageHeaders.MESSAGE_ID);
        if (header != null && !header.isBlank() && header.length() <= MessageId.MAX_LENGTH) {
            return MessageId.of(header);
        }
        return MessageId.of(topic + "-" + partition + "-" + offset);
    }

    public String eventType() {
        return headers.get(MessageHeaders.EVENT_TYPE);
    }
}
