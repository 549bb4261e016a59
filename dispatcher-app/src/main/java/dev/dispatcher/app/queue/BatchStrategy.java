package dev.dispatcher.app.queue;

import java.util.List;
import reactor.core.publisher.Mono;

/**
 * What a claim loop does with a claimed batch: the relay publishes its lanes, the inbox runs its handlers. The loop
 * calls {@link #work} once per batch and owns everything around it (gating, claiming, lease renewal, deciding each
 * attempt's transition once, handing dead letters to its {@link DeadLetterPort}, the classified write, counting,
 * draining).
 *
 * @param <M> the claimed row type
 */
public interface BatchStrategy<M> {

    /**
     * Works one batch and emits one {@link Attempt} per message (any order). Must not error for a message's own
     * failure (that is an {@link Attempt.Dispatched} with a failed result); an error releases the whole batch.
     * Messages not started when {@link Batch#stopping()} turns true are reported as not attempted, so draining
     * gives their leases back at once.
     */
    Mono<List<Attempt<M>>> work(Batch<M> batch);

    /**
     * Whether the destination takes work now. While it does not, the loop claims nothing and calls {@link #probe()}
     * every poll interval. Default: always.
     */
    default boolean available() {
        return true;
    }

    /** Checks the destination while {@link #available()} is false, and makes it available again if it answers. */
    default Mono<Void> probe() {
        return Mono.empty();
    }

    /**
     * Whether a batch's leases may hold back other claimable rows (per-key order: a leased key's later rows wait),
     * so a finished batch that came back full, or that saw new work arrive while it ran, wakes the loop.
     */
    default boolean holdsBackWork() {
        return false;
    }

    /**
     * Whether the claim that gave {@code batch} may have left rows of its keys behind although it was not full (a
     * claim that takes at most so many rows of a key): then its finish wakes the loop as a full batch's does.
     */
    default boolean mayHaveLeftRowsOfItsKeys(List<M> batch) {
        return false;
    }

    /** A claimed batch as the strategy sees it. */
    interface Batch<M> {

        /** The claimed rows, in claim order. */
        List<M> messages();

        /** Whether the loop is draining: start nothing new. */
        boolean stopping();

        /** Says that the strategy wrote {@code message}'s final transition itself: its lease is no longer renewed. */
        void written(M message);
    }
}
