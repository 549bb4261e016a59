package dev.dispatcher.app.inbox;

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

    /** The header carrying the stable message id (the relay sets it to the outbox row's id). */
    public static final String MESSAGE_ID_HEADER = "message-id";
    public static final String EVENT_TYPE_HEADER = "event-type";

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
        String header = headers.get(MESSAGE_ID_HEADER);
        if (header != null && !header.isBlank() && header.length() <= MessageId.MAX_LENGTH) {
            return MessageId.of(header);
        }
        return MessageId.of(topic + "-" + partition + "-" + offset);
    }

    public String eventType() {
        return headers.get(EVENT_TYPE_HEADER);
    }
}
