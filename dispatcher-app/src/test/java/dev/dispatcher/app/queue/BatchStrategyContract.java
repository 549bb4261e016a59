package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.domain.DispatchResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BatchStrategy} promises the claim loop, written once and run against the relay's and the inbox's
 * strategies (with per-key order): one attempt per message of a batch, from one call; a message's own failure is a
 * failed attempt, not an error; a draining loop's batch is not attempted at all; and a key's run stops at its first
 * failure, the rest of the run not attempted, while other keys go on.
 *
 * @param <M> the claimed row type
 */
public abstract class BatchStrategyContract<M extends Claimed> {

    private static final Duration WORK = Duration.ofSeconds(10);

    /** A strategy with per-key order whose destination refuses the messages named in {@code failing}. */
    protected abstract BatchStrategy<M> strategy(Set<String> failing);

    /** A claimed message called {@code name} (its payload), of {@code key} (null: none), at {@code seq}. */
    protected abstract M message(String name, @Nullable String key, long seq);

    /** The name {@link #message} gave {@code message}. */
    protected abstract String name(M message);

    /** How many messages the strategies of this test have started (handed off, handled) so far. */
    protected abstract int started();

    @Test
    void everyMessageOfABatchGetsExactlyOneAttemptFromOneCall() {
        List<M> batch = List.of(message("a1", "a", 1), message("b1", "b", 2), message("u1", null, 3),
                message("a2", "a", 4));

        Map<String, DispatchResult> results = work(strategy(Set.of()), batch, false);

        assertThat(results).containsOnlyKeys("a1", "a2", "b1", "u1")
                .allSatisfy((name, result) -> assertThat(result).isInstanceOf(DispatchResult.Published.class));
    }

    @Test
    void aMessagesOwnFailureIsAFailedAttemptNotAnError() {
        List<M> batch = List.of(message("u1", null, 1), message("u2", null, 2), message("b1", "b", 3));

        Map<String, DispatchResult> results = work(strategy(Set.of("u1")), batch, false);

        assertThat(results.get("u1")).isInstanceOf(DispatchResult.Failed.class);
        assertThat(results.get("u2")).isInstanceOf(DispatchResult.Published.class);
        assertThat(results.get("b1")).isInstanceOf(DispatchResult.Published.class);
    }

    @Test
    void aKeysRunStopsAtItsFirstFailureAndTheRestIsNotAttemptedWhileOtherKeysGoOn() {
        // seqs out of order in the batch: a run is worked in seq order whatever the batch's order
        List<M> batch = List.of(message("a3", "a", 3), message("b1", "b", 2), message("a1", "a", 1),
                message("a2", "a", 2), message("b2", "b", 4));

        Map<String, DispatchResult> results = work(strategy(Set.of("a2")), batch, false);

        assertThat(results.get("a1")).isInstanceOf(DispatchResult.Published.class);
        assertThat(results.get("a2")).isInstanceOf(DispatchResult.Failed.class);
        assertThat(results.get("a3")).isInstanceOf(DispatchResult.NotAttempted.class);
        assertThat(results.get("b1")).isInstanceOf(DispatchResult.Published.class);
        assertThat(results.get("b2")).isInstanceOf(DispatchResult.Published.class);
    }

    @Test
    void aDrainingLoopsBatchIsNotAttemptedAndNothingOfItStarts() {
        List<M> batch = List.of(message("a1", "a", 1), message("u1", null, 2));

        Map<String, DispatchResult> results = work(strategy(Set.of()), batch, true);

        assertThat(results).containsOnlyKeys("a1", "u1")
                .allSatisfy((name, result) -> assertThat(result).isInstanceOf(DispatchResult.NotAttempted.class));
        assertThat(started()).isZero();
    }

    /** Works {@code batch} with one call, and each message's result by name; each message once. */
    private Map<String, DispatchResult> work(BatchStrategy<M> strategy, List<M> batch, boolean stopping) {
        List<Attempt<M>> attempts = strategy.work(Batches.of(batch, stopping)).block(WORK);
        Map<String, DispatchResult> results = new HashMap<>();
        for (Attempt<M> attempt : attempts) {
            DispatchResult result = switch (attempt) {
                case Attempt.Dispatched<M> d -> d.result();
                case Attempt.Written<M> w -> w.result().isApplied() ? DispatchResult.PUBLISHED
                        : new DispatchResult.NotAttempted("not applied");
            };
            assertThat(results.put(name(attempt.message()), result)).as("one attempt per message").isNull();
        }
        assertThat(results).hasSameSizeAs(batch);
        return results;
    }
}
