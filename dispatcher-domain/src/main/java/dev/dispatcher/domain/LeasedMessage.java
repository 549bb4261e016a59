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

    /**
     * The row a {@link Transition.Deliver} written under this lease leaves: {@code queue}'s success status, {@code
     * version + 1}, no lease end, the token kept (so a retried write is recognised as ours), attempts unchanged.
     *
     * <p>Exact whenever the guarded write succeeded, that is whenever the row was still live and held under this
     * lease's token: nobody else has written such a row since the claim (an operator mutation clears the token, a
     * new claim replaces it, and this lease's own transitions other than a renewal end it), and neither the claim
     * nor a renewal changes version or attempts. So a store that learns only <em>that</em> it wrote the row (its
     * statement returns nothing for it) reports this state as the {@link TransitionOutcome.Applied} entry.
     */
    public MessageState afterDeliver(Queue queue) {
        return new MessageState(id, queue.successStatus(), lease.token(), null, version + 1, attempts);
    }

    /** The durable state this snapshot describes, used as the entry of a {@link TransitionOutcome.Missing} result. */
    public MessageState asState() {
        return new MessageState(id, status, lease.token(), lease.until(), version, attempts);
    }
}
