package dev.dispatcher.app.queue;

import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.domain.DispatchDecision;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.domain.Transition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One attempt of a batch with its transition, decided once: the domain's {@link DispatchDecision} for an {@link
 * Attempt.Dispatched} (a retry's jitter is drawn here and nowhere else), the transition a strategy wrote itself for an
 * {@link Attempt.Written}. The dead-letter port and the writer both read this decision; neither decides again.
 *
 * @param attempt what the strategy did
 * @param transition the transition to write (or that was written)
 * @param <M> the claimed row type
 */
record DecidedTransition<M extends Claimed>(Attempt<M> attempt, Transition transition) {

    /** Each of {@code attempts} with its transition, in order. */
    static <M extends Claimed> List<DecidedTransition<M>> all(List<Attempt<M>> attempts, RetryPolicy policy) {
        List<DecidedTransition<M>> decided = new ArrayList<>(attempts.size());
        attempts.forEach(attempt -> decided.add(of(attempt, policy)));
        return decided;
    }

    /** Decides {@code attempt}'s transition under {@code policy}. */
    static <M extends Claimed> DecidedTransition<M> of(Attempt<M> attempt, RetryPolicy policy) {
        Transition transition = switch (attempt) {
            case Attempt.Dispatched<M> d ->
                    DispatchDecision.decide(d.result(), d.message().leased().attempts(), policy);
            case Attempt.Written<M> w -> w.transition();
        };
        return new DecidedTransition<>(attempt, transition);
    }

    /** The dead letter to hand on before the write: a dead-letter transition the loop is about to write. */
    Optional<DeadLetterPort.DeadLetter<M>> deadLetter() {
        return attempt instanceof Attempt.Dispatched<M> d && transition instanceof Transition.DeadLetter dead
                ? Optional.of(new DeadLetterPort.DeadLetter<>(d.message(), dead.reason()))
                : Optional.empty();
    }
}
