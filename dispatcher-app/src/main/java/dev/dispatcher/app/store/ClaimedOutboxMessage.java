package dev.dispatcher.app.store;

import dev.dispatcher.domain.LeasedMessage;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * An outbox row as a claim returned it: the lease snapshot plus everything needed to publish it.
 *
 * @param leased the worker's lease snapshot, used to ask for transitions
 * @param topic Kafka topic
 * @param eventType the {@code event-type} header
 * @param payload record value
 * @param contentType the {@code content-type} header
 * @param headers stored headers, sent as Kafka headers
 * @param correlationId the {@code correlation-id} header, may be null
 * @param causationId the {@code causation-id} header, may be null
 * @param createdAt database time of the insert (commit-to-publish latency starts here)
 * @param leaseExpired whether this claim took over a lease that had run out
 */
public record ClaimedOutboxMessage(
        LeasedMessage leased,
        String topic,
        String eventType,
        byte[] payload,
        String contentType,
        Map<String, String> headers,
        String correlationId,
        String causationId,
        Instant createdAt,
        boolean leaseExpired) implements Claimed {

    public ClaimedOutboxMessage {
        Objects.requireNonNull(leased, "leased");
        Objects.requireNonNull(topic, "topic");
        headers = Map.copyOf(headers);
    }

    /** The Kafka key and ordering key, or null. */
    public String key() {
        return leased.key();
    }

    @Override
    public long payloadBytes() {
        return payload == null ? 0 : payload.length;
    }
}
