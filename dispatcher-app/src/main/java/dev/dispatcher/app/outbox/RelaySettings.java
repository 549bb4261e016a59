package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.queue.LoopSettings;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable settings of one relay, validated by the configuration layer ({@code dispatcher.relay.*}).
 *
 * @param loop the claim loop's knobs: worker id, batch size, in-flight batches and bytes, lease, poll interval,
 *     claim linger, retry policy and drain timeout
 * @param publishConcurrency key runs (lanes) of one batch published at once
 * @param ordering per-key or none
 * @param missingTopicTimeout how long a topic may be missing (as this relay sees it, without a break) before its
 *     rows are dead-lettered
 * @param format how a row becomes its Kafka record ({@code dispatcher.relay.format})
 * @param deadLetterTopic where a dead-lettered row is also published (in {@code format}, with the dead letter's
 *     headers) before its row turns {@code DEAD_LETTERED}, or null (off)
 */
public record RelaySettings(
        LoopSettings loop,
        int publishConcurrency,
        Ordering ordering,
        Duration missingTopicTimeout,
        RecordFormat format,
        @Nullable DeadLetterTopic deadLetterTopic) {

    /** The default {@code claimLinger}, as {@code dispatcher.relay.claim-linger}. */
    public static final Duration DEFAULT_CLAIM_LINGER = Duration.ofMillis(5);
    /** The default {@code maxInFlightBytes}, as {@code dispatcher.relay.max-in-flight-bytes} (64 MiB). */
    public static final long DEFAULT_MAX_IN_FLIGHT_BYTES = 64L * 1024 * 1024;
    /** The default {@code missingTopicTimeout}, as {@code dispatcher.relay.missing-topic-timeout}. */
    public static final Duration DEFAULT_MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);

    public RelaySettings {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(missingTopicTimeout, "missingTopicTimeout");
        Objects.requireNonNull(format, "format");
    }

    /**
     * Settings from the flat list of knobs, as {@code dispatcher.relay.*} names them.
     *
     * @param claimLinger least time between the starts of two claims, unless the earlier one came back full
     * @param maxInFlightBytes payload bytes of claimed, unfinished batches, at most (a claim takes fewer rows when
     *     payloads are large; one row larger than what is left still goes alone)
     */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout, Duration claimLinger, long maxInFlightBytes, Duration missingTopicTimeout,
            RecordFormat format, @Nullable DeadLetterTopic deadLetterTopic) {
        this(new LoopSettings(workerId, batchSize, maxInFlightBatches, leaseDuration, pollInterval, claimLinger,
                retryPolicy, drainTimeout, maxInFlightBytes), publishConcurrency, ordering, missingTopicTimeout,
                format, deadLetterTopic);
    }

    /** Settings in the plain format, without a dead-letter topic. */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout, Duration claimLinger, long maxInFlightBytes, Duration missingTopicTimeout) {
        this(workerId, batchSize, maxInFlightBatches, publishConcurrency, leaseDuration, pollInterval, ordering,
                retryPolicy, drainTimeout, claimLinger, maxInFlightBytes, missingTopicTimeout, RecordFormat.plain(),
                null);
    }

    /** Settings with the default in-flight byte bound and missing-topic timeout. */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout, Duration claimLinger) {
        this(workerId, batchSize, maxInFlightBatches, publishConcurrency, leaseDuration, pollInterval, ordering,
                retryPolicy, drainTimeout, claimLinger, DEFAULT_MAX_IN_FLIGHT_BYTES, DEFAULT_MISSING_TOPIC_TIMEOUT);
    }

    /** Settings with the default missing-topic timeout. */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout, Duration claimLinger, long maxInFlightBytes) {
        this(workerId, batchSize, maxInFlightBatches, publishConcurrency, leaseDuration, pollInterval, ordering,
                retryPolicy, drainTimeout, claimLinger, maxInFlightBytes, DEFAULT_MISSING_TOPIC_TIMEOUT);
    }

    /** Settings with the default in-flight byte bound. */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout, Duration claimLinger, Duration missingTopicTimeout) {
        this(workerId, batchSize, maxInFlightBatches, publishConcurrency, leaseDuration, pollInterval, ordering,
                retryPolicy, drainTimeout, claimLinger, DEFAULT_MAX_IN_FLIGHT_BYTES, missingTopicTimeout);
    }

    /** These settings with another missing-topic timeout. */
    public RelaySettings withMissingTopicTimeout(Duration timeout) {
        return new RelaySettings(loop, publishConcurrency, ordering, timeout, format, deadLetterTopic);
    }

    /** These settings with records in {@code format}. */
    public RelaySettings withFormat(RecordFormat format) {
        return new RelaySettings(loop, publishConcurrency, ordering, missingTopicTimeout, format, deadLetterTopic);
    }

    /** These settings with dead letters also published to {@code topic} (null: off). */
    public RelaySettings withDeadLetterTopic(@Nullable DeadLetterTopic topic) {
        return new RelaySettings(loop, publishConcurrency, ordering, missingTopicTimeout, format, topic);
    }

    /** Settings with the default claim linger and missing-topic timeout. */
    public RelaySettings(String workerId, int batchSize, int maxInFlightBatches, int publishConcurrency,
            Duration leaseDuration, Duration pollInterval, Ordering ordering, RetryPolicy retryPolicy,
            Duration drainTimeout) {
        this(workerId, batchSize, maxInFlightBatches, publishConcurrency, leaseDuration, pollInterval, ordering,
                retryPolicy, drainTimeout, DEFAULT_CLAIM_LINGER);
    }
}
