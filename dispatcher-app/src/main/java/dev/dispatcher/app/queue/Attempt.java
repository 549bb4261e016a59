package dev.dispatcher.app.queue;

import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionResult;
import java.util.Objects;

/**
 * What a strategy did with one message of a batch: either it tried and the loop decides and writes the
 * transition (with the batch's others, in one statement), or it wrote the transition itself (the inbox's handler
 * transaction) and the loop only counts it.
 *
 * @param <M> the claimed row type
 */
public sealed interface Attempt<M> {

    /** The message this attempt is about. */
    M message();

    /**
     * The strategy tried (or did not); the loop turns {@code result} into a transition with the domain's
     * {@code DispatchDecision} and writes it.
     */
    record Dispatched<M>(M message, DispatchResult result) implements Attempt<M> {
        public Dispatched {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(result, "result");
        }
    }

    /** The strategy wrote {@code transition} itself, with this {@code result}; the loop counts it. */
    record Written<M>(M message, Transition transition, TransitionResult result) implements Attempt<M> {
        public Written {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(transition, "transition");
            Objects.requireNonNull(result, "result");
        }
    }
}
