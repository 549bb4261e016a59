package dev.dispatcher.domain;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A worker's time-bounded claim on a message.
 *
 * <p>The token fences writes: a transition is written only while the row still carries this token, whatever the
 * clocks say. {@code until} is database time; a lease past it may be claimed by another worker, which replaces the
 * token.
 *
 * @param owner the worker id that holds the lease
 * @param token fresh for every claim
 * @param until database time after which the lease may be taken over
 */
public record Lease(String owner, UUID token, Instant until) {

    public Lease {
        Objects.requireNonNull(owner, "lease owner");
        Objects.requireNonNull(token, "lease token");
        Objects.requireNonNull(until, "lease until");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("lease owner must not be blank");
        }
    }

    /** Whether the lease is still live at database time {@code now}. */
    public boolean isLiveAt(Instant now) {
        return until.isAfter(now);
    }
}
