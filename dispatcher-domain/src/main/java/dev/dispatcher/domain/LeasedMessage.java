package dev.dispatcher.domain;

import java.util.Objects;

/**
 * A worker's snapshot of a message it has just leased: what it knows when it asks for a transition.
 *
 * @param id the message id
 * @param lease the lease this worker holds
 * @param version the row version when leased (claims do not change it)
 * @param attempts attempts including the current one (the claim counts it)
 * @param status the live status when leased
 * @param key ordering key, or {@code null} for unordered messages
 * @param seq claim order
 */
public record LeasedMessage(
        MessageId id, Lease lease, long version, int attempts, MessageStatus status, String key, long seq) {

    public LeasedMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(status, "status");
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must be >= 0, but was " + attempts);
        }
        if (status.isTerminal()) {
            throw new IllegalArgumentException("a leased message is live, but " + id + " was " + status);
        }
    }

    /** The durable state this snapshot describes, used as the entry of a {@link TransitionOutcome.Missing} result. */
    public MessageState asState() {
        return new MessageState(id, status, lease.token(), lease.until(), version, attempts);
    }
}
