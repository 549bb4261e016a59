package dev.dispatcher.app.store;

import dev.dispatcher.domain.LeasedMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * An inbox row as a claim returned it: the lease snapshot plus the stored record.
 *
 * @param leased the worker's lease snapshot
 * @param consumer the consumer that took the record in
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param keyBytes the raw bytes of a key that is not text (then {@link #key()} is null), else null
 * @param eventType the {@code event-type} header, may be null
 * @param headers the record's headers
 * @param payload record value
 * @param receivedAt database time the record was stored
 * @param leaseExpired whether this claim took over a lease that had run out
 */
public record ClaimedInboxMessage(LeasedMessage leased, String consumer, String topic, int partition, long offset,
        byte[] keyBytes, String eventType, Map<String, String> headers, byte[] payload, Instant receivedAt,
        boolean leaseExpired)
        implements Claimed {

    public ClaimedInboxMessage {
        Objects.requireNonNull(leased, "leased");
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(payload, "payload");
        headers = Map.copyOf(headers);
    }

    /** The text key, or null (no key, or a key that is not text: {@link #keyBytes()}). */
    public String key() {
        return leased.key();
    }

    /**
     * The key as per-key order knows it, its bytes: a text key's UTF-8, or a key's own bytes when it is not text; null
     * for a record without a key. Two rows have the same key exactly when these are equal.
     */
    public byte[] orderingKey() {
        return keyBytes != null ? keyBytes.clone() : key() != null ? key().getBytes(StandardCharsets.UTF_8) : null;
    }
}
