package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageId;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * A received record as the inbox stores it: every text field storable in PostgreSQL {@code text}/{@code jsonb}
 * (no NUL, valid Unicode), decided by the intake before it gets here.
 *
 * <p>The key has one of two forms: {@code key}, text as received, or {@code keyBytes}, the raw bytes of a key that
 * is not text (NUL, invalid UTF-8); never both. A record with a {@code deadLetterReason} is stored
 * {@code DEAD_LETTERED} with that reason (a poison record); only such a record may lack its {@code payload} (a value
 * not stored: over the consumer's limit, or refused by the database).
 *
 * @param id the deduplication id
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param key text key, may be null
 * @param keyBytes raw bytes of a key that is not text, else null
 * @param eventType the {@code event-type} header, may be null
 * @param headers the record's headers that could be stored
 * @param payload record value; null when it was not stored
 * @param deadLetterReason why the record is stored dead-lettered, or null for a record to handle
 */
public record InboxRecord(MessageId id, String topic, int partition, long offset, String key, byte[] keyBytes,
        String eventType, Map<String, String> headers, byte[] payload, String deadLetterReason) {

    public InboxRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(topic, "topic");
        headers = Map.copyOf(headers);
        if (key != null && keyBytes != null) {
            throw new IllegalArgumentException("a key is text or bytes, not both");
        }
        if (payload == null && deadLetterReason == null) {
            throw new IllegalArgumentException("only a dead-lettered record may be stored without its value");
        }
    }

    /** A record to handle, with a text key (or none). */
    public static InboxRecord of(MessageId id, String topic, int partition, long offset, String key, String eventType,
            Map<String, String> headers, byte[] payload) {
        return new InboxRecord(id, topic, partition, offset, key, null, eventType, headers, payload, null);
    }

    /** Whether it is stored dead-lettered. */
    public boolean deadLettered() {
        return deadLetterReason != null;
    }

    /** The key as received: the bytes of a binary key, the UTF-8 bytes of a text key, or null. */
    public byte[] rawKey() {
        return keyBytes != null ? keyBytes.clone() : key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    }
}
