package dev.dispatcher.app.inbox;

import dev.dispatcher.app.queue.LoopSettings;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of one consumer's intake and handler loop, validated by the configuration layer
 * ({@code dispatcher.inbox.consumers[i].*}, defaults there).
 *
 * @param consumer consumer name, part of the inbox key
 * @param workerId lease owner name, also in logs
 * @param batchSize rows per claim
 * @param concurrency handler invocations at once across all in-flight batches; each in-process (transactional) one
 *     holds a pooled connection
 * @param maxInFlightBatches claimed batches not yet finished
 * @param leaseDuration lease length; renewed at a third of it while a message is unfinished
 * @param pollInterval wake-up of an idle loop, and the re-check interval of paused intake
 * @param claimLinger least time between two claims unless the earlier came back full
 * @param retryPolicy backoff and attempt limit of failed handlers
 * @param maxBacklog live rows of this consumer at which intake pauses until the handlers catch up
 * @param handlerTimeout how long one handler invocation may run before it counts as a transient failure
 * @param drainTimeout how long shutdown waits for in-flight messages
 * @param maxPayloadBytes the longest value stored; a longer one is stored dead-lettered without it (poison)
 */
public record InboxSettings(
        String consumer,
        String workerId,
        int batchSize,
        int concurrency,
        int maxInFlightBatches,
        Duration leaseDuration,
        Duration pollInterval,
        Duration claimLinger,
        RetryPolicy retryPolicy,
        long maxBacklog,
        Duration handlerTimeout,
        Duration drainTimeout,
        long maxPayloadBytes) {

    public InboxSettings {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(handlerTimeout, "handlerTimeout");
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be positive, but was " + maxPayloadBytes);
        }
    }

    /** The claim loop's knobs. */
    public LoopSettings loop() {
        return new LoopSettings(workerId, batchSize, maxInFlightBatches, leaseDuration, pollInterval, claimLinger,
                retryPolicy, drainTimeout);
    }
}
