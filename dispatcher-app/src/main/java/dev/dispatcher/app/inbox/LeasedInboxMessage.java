package dev.dispatcher.app.inbox;

import dev.dispatcher.domain.LeasedMessage;
import java.util.Objects;

/**
 * An inbox row as a claim returned it.
 *
 * @param leased the lease snapshot, used to ask for transitions
 * @param message what the handler sees
 * @param leaseExpired whether this claim took over a lease that had run out
 */
public record LeasedInboxMessage(LeasedMessage leased, InboxMessage message, boolean leaseExpired) {

    public LeasedInboxMessage {
        Objects.requireNonNull(leased, "leased");
        Objects.requireNonNull(message, "message");
    }
}
