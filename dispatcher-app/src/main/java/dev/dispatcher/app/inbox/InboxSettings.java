package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.queue.LoopSettings;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable settings of one consumer's intake and handler loop, validated by the configuration layer
 * ({@code dispatcher.inbox.consumers[i].*}, defaults there).
 *
 * @param consumer consumer name, part of the inbox key
 * @param loop the claim loop's knobs: worker id, batch size, in-flight batches, lease, poll interval (also the
 *     re-check interval of paused intake), claim linger, the handlers' retry policy and drain timeout; no byte bound
 * @param concurrency handler invocations at once across all in-flight batches; each in-process (transactional) one
 *     holds a pooled connection
 * @param maxBacklog live rows of this consumer at which intake pauses until the handlers catch up
 * @param handlerTimeout how long one handler invocation may run before it counts as a transient failure
 * @param maxPayloadBytes the longest value stored; a longer one is stored dead-lettered without it (poison)
 * @param ordering {@link Ordering#PER_KEY}: a key's messages are handled one at a time, in the inbox's arrival
 *     order (offset order within a partition); {@link Ordering#NONE}: any message in any order
 * @param deadLetterTopic where a message the handler gives up on is also published before its row turns
 *     {@code DEAD_LETTERED}, or null (off)
 */
record InboxSettings(
        String consumer,
        LoopSettings loop,
        int concurrency,
        long maxBacklog,
        Duration handlerTimeout,
        long maxPayloadBytes,
        Ordering ordering,
        @Nullable DeadLetterTopic deadLetterTopic) {

    public InboxSettings {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(handlerTimeout, "handlerTimeout");
        Objects.requireNonNull(ordering, "ordering");
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be positive, but was " + maxPayloadBytes);
        }
    }

    /** Settings from the flat list of knobs, as {@code dispatcher.inbox.consumers[i].*} names them. */
    public InboxSettings(String consumer, String workerId, int batchSize, int concurrency, int maxInFlightBatches,
            Duration leaseDuration, Duration pollInterval, Duration claimLinger, RetryPolicy retryPolicy,
            long maxBacklog, Duration handlerTimeout, Duration drainTimeout, long maxPayloadBytes, Ordering ordering,
            @Nullable DeadLetterTopic deadLetterTopic) {
        this(consumer, new LoopSettings(workerId, batchSize, maxInFlightBatches, leaseDuration, pollInterval,
                claimLinger, retryPolicy, drainTimeout), concurrency, maxBacklog, handlerTimeout, maxPayloadBytes,
                ordering, deadLetterTopic);
    }

    /** Settings without per-key order or a dead-letter topic, as every consumer had before they existed. */
    public InboxSettings(String consumer, String workerId, int batchSize, int concurrency, int maxInFlightBatches,
            Duration leaseDuration, Duration pollInterval, Duration claimLinger, RetryPolicy retryPolicy,
            long maxBacklog, Duration handlerTimeout, Duration drainTimeout, long maxPayloadBytes) {
        this(consumer, workerId, batchSize, concurrency, maxInFlightBatches, leaseDuration, pollInterval, claimLinger,
                retryPolicy, maxBacklog, handlerTimeout, drainTimeout, maxPayloadBytes, Ordering.NONE, null);
    }

    /** These settings with {@code ordering}. */
    public InboxSettings withOrdering(Ordering ordering) {
        return new InboxSettings(consumer, loop, concurrency, maxBacklog, handlerTimeout, maxPayloadBytes, ordering,
                deadLetterTopic);
    }

    /** These settings with dead letters also published to {@code topic} (null: off). */
    public InboxSettings withDeadLetterTopic(@Nullable DeadLetterTopic topic) {
        return new InboxSettings(consumer, loop, concurrency, maxBacklog, handlerTimeout, maxPayloadBytes, ordering,
                topic);
    }

    /** The most rows of one key a per-key claim takes for these workers ({@link InboxStore#keyRun}). */
    int keyRun() {
        return InboxStore.keyRun(loop.batchSize(), concurrency);
    }
}
