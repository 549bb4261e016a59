package dev.dispatcher.app.store;

import dev.dispatcher.domain.LeasedMessage;
import java.util.Map;

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

    /** The topic it is published to (outbox) or was received from (inbox), for its log events; null if none. */
    default String topic() {
        return null;
    }

    /** The inbox consumer it belongs to, for its log events; null for an outbox row. */
    default String consumer() {
        return null;
    }

    /** Its headers (a {@code traceparent} among them gives its log events their trace id); none by default. */
    default Map<String, String> headers() {
        return Map.of();
    }
}
