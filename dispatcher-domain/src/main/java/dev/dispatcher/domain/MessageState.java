package dev.dispatcher.domain;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * The durable, lease-relevant state of one message row at one moment: what a transition's classification reads.
 *
 * @param id the message id
 * @param status durable status
 * @param leaseToken token of the current or last lease ({@code null} if never leased); terminal rows keep the
 *     token of the lease that finished them
 * @param leaseUntil end of the current lease, {@code null} when no lease is held
 * @param version optimistic-concurrency version: changes with every status change and operator mutation
 * @param attempts attempts spent so far
 */
public record MessageState(
        MessageId id, MessageStatus status, UUID leaseToken, Instant leaseUntil, long version, int attempts) {

    public MessageState {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
    }

    /** Whether this row is live and still held under {@code token} (the lease may have run out unclaimed). */
    public boolean isHeldBy(UUID token) {
        return !status.isTerminal() && leaseUntil != null && token.equals(leaseToken);
    }

    /** Whether this row is held under {@code token} by a lease still running at database time {@code now}. */
    public boolean isLiveLeaseOf(UUID token, Instant now) {
        return isHeldBy(token) && leaseUntil.isAfter(now);
    }
}
