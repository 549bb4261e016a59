package dev.dispatcher.app.store;

import dev.dispatcher.domain.LeasedMessage;

/** A row a claim returned: the worker's lease snapshot, and whether the claim took over an expired lease. */
public interface Claimed {

    /** What the worker knows of the row; transitions are asked with it. */
    LeasedMessage leased();

    /** Whether this claim took over a lease that had run out (counted as {@code dispatcher.lease.expirations}). */
    boolean leaseExpired();

    /** The bytes of its payload a worker holds while the row is in flight; 0 where no claim bounds them. */
    default long payloadBytes() {
        return 0;
    }
}
