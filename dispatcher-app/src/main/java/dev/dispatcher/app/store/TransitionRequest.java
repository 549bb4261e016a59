package dev.dispatcher.app.store;

import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.Transition;
import java.util.Objects;

/**
 * One transition a worker asks for, with the lease snapshot it holds.
 *
 * @param leased what the worker knows of the row
 * @param transition what it wants written
 */
public record TransitionRequest(LeasedMessage leased, Transition transition) {

    public TransitionRequest {
        Objects.requireNonNull(leased, "leased");
        Objects.requireNonNull(transition, "transition");
    }
}
