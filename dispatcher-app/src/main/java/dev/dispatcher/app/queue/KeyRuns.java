package dev.dispatcher.app.queue;

import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.domain.DispatchResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Per-key order within a claimed batch, written once for the relay and the inbox: a batch grouped into runs by key
 * ({@link #byKey}), and the run rule ({@link Run}): a key's run stops at its first message that did not succeed, and
 * the rest of the run is {@linkplain DispatchResult.NotAttempted not attempted} (given back without spending
 * attempts), so nothing of the key overtakes the failed message.
 */
public final class KeyRuns {

    /** Why a message after its run stopped is not attempted. */
    static final String REST_OF_RUN = "an earlier message of its key was not handled";

    private KeyRuns() {
    }

    /**
     * A batch by key.
     *
     * @param runs each key's messages in {@code seq} order, keys in the order they first appear in the batch
     * @param unkeyed the messages without a key, in batch order
     */
    public record Grouped<M>(List<List<M>> runs, List<M> unkeyed) {
    }

    /** Groups {@code batch} by {@code key} (null: the message has no key; keys compare by {@code equals}). */
    public static <M extends Claimed> Grouped<M> byKey(List<M> batch, Function<? super M, @Nullable Object> key) {
        Map<Object, List<M>> byKey = new LinkedHashMap<>();
        List<M> unkeyed = new ArrayList<>();
        for (M m : batch) {
            Object k = key.apply(m);
            if (k == null) {
                unkeyed.add(m);
            } else {
                byKey.computeIfAbsent(k, any -> new ArrayList<>()).add(m);
            }
        }
        List<List<M>> runs = new ArrayList<>(byKey.size());
        byKey.values().forEach(run -> {
            run.sort(Comparator.comparingLong(m -> m.leased().seq()));
            runs.add(run);
        });
        return new Grouped<>(runs, unkeyed);
    }

    /** A run as it is worked, one message after another; {@code ordered} false: a group that needs no order. */
    public static Run run(boolean ordered) {
        return new Run(ordered);
    }

    /**
     * Works {@code run} one message after another with {@code work}; once the run stopped, the messages left are not
     * attempted and {@code work} is not called for them.
     */
    public static <M> Mono<List<Attempt<M>>> inOrder(List<M> run, Function<M, Mono<Attempt<M>>> work) {
        return Mono.defer(() -> {
            Run rule = run(true); // this subscription's; the run is sequential
            return Flux.fromIterable(run)
                    .concatMap(m -> rule.stopped()
                            ? Mono.just(new Attempt.Dispatched<>(m, rule.notAttempted()))
                            : Mono.defer(() -> work.apply(m)).map(rule::next))
                    .collectList();
        });
    }

    /**
     * The run rule for one run, fed its messages' results in run order. A success stands; the first result of an
     * ordered run that is not a success stops the run; after that, every result that is not a success is not
     * attempted. Not thread-safe: one run is worked one message after another.
     */
    public static final class Run {

        private final boolean ordered;
        private boolean stopped;

        private Run(boolean ordered) {
            this.ordered = ordered;
        }

        /** Whether the run stopped: the messages left are not worked, but {@linkplain #notAttempted() given back}. */
        public boolean stopped() {
            return stopped;
        }

        /** What a message after the stop gets without being worked. */
        public DispatchResult notAttempted() {
            return new DispatchResult.NotAttempted(REST_OF_RUN);
        }

        /** {@code result} of the run's next message, as the rule has it. */
        public DispatchResult next(DispatchResult result) {
            if (result instanceof DispatchResult.Published) {
                return result;
            }
            if (stopped) {
                return notAttempted();
            }
            stopped = ordered;
            return result;
        }

        /** {@code attempt} on the run's next message, as the rule has it (a strategy's own write stands as written). */
        public <M> Attempt<M> next(Attempt<M> attempt) {
            return switch (attempt) {
                case Attempt.Dispatched<M> d -> {
                    DispatchResult result = next(d.result());
                    yield result == d.result() ? d : new Attempt.Dispatched<>(d.message(), result);
                }
                case Attempt.Written<M> w -> {
                    stopped |= ordered && !w.result().isApplied();
                    yield w;
                }
            };
        }
    }
}
