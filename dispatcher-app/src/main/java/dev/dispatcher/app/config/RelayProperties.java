package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * {@code dispatcher.relay.*}: how much the outbox relay leases and sends at once, and how it waits for work. The
 * only place these ranges are checked.
 *
 * @param batchSize rows claimed per statement (1..10000); with {@code max-in-flight-batches} it bounds the rows a
 *     relay holds in memory, {@code max-in-flight-bytes} their payloads
 * @param maxInFlightBatches leased batches not yet finished (1..64); bounds leased rows to this x batch size
 * @param publishConcurrency key runs of one batch published at once (1..4096)
 * @param leaseDuration how long a claim is exclusive before another worker may take it over (2s..1h); renewed at a
 *     third of it
 * @param pollInterval the fallback wake-up when no notification arrives, the breaker's probe interval, and, per key,
 *     the longest wait between empty claims behind keys held by batches in flight (10ms..10min)
 * @param ordering whether messages of one key are sent in order ({@code per-key}: one lease at a time per key, in
 *     {@code seq} order) or not ({@code none})
 * @param claimLinger least time between two claims unless the earlier came back full (0s..1s): under a trickle of
 *     inserts, rows arriving within it share one claim instead of one claim each; under a stream faster than 500 rows
 *     a second the claim loop stretches it with the rate, up to 4 times ({@code ClaimLoop.stretchedLinger})
 * @param maxInFlightBytes payload bytes of claimed, unfinished batches, at most: a claim takes fewer rows when
 *     payloads are large (one row larger than what is left still goes alone), so the relay's memory is bounded by
 *     bytes as well as by {@code max-in-flight-batches x batch-size} rows
 * @param missingTopicTimeout how long a topic may be missing (seen so by one instance, without a break) before its
 *     rows are dead-lettered with the cause; until then they are held back, attempts unspent
 */
public record RelayProperties(
        int batchSize,
        int maxInFlightBatches,
        int publishConcurrency,
        Duration leaseDuration,
        Duration pollInterval,
        Ordering ordering,
        Duration claimLinger,
        DataSize maxInFlightBytes,
        Duration missingTopicTimeout) {

    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 4;
    public static final int DEFAULT_PUBLISH_CONCURRENCY = 64;
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    public static final Ordering DEFAULT_ORDERING = Ordering.PER_KEY;
    public static final Duration DEFAULT_CLAIM_LINGER = Duration.ofMillis(5);
    public static final DataSize DEFAULT_MAX_IN_FLIGHT_BYTES = DataSize.ofMegabytes(64);
    public static final Duration DEFAULT_MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);

    public RelayProperties {
        requireBetween("relay.batch-size", batchSize, 1, 10_000);
        requireBetween("relay.max-in-flight-batches", maxInFlightBatches, 1, 64);
        requireBetween("relay.publish-concurrency", publishConcurrency, 1, 4096);
        requireBetween("relay.lease-duration", leaseDuration, Duration.ofSeconds(2), Duration.ofHours(1));
        requireBetween("relay.poll-interval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(10));
        Objects.requireNonNull(ordering, "dispatcher.relay.ordering");
        requireBetween("relay.claim-linger", claimLinger, Duration.ZERO, Duration.ofSeconds(1));
        Objects.requireNonNull(maxInFlightBytes, "dispatcher.relay.max-in-flight-bytes");
        if (maxInFlightBytes.toBytes() < 1) {
            throw PropertyRules.invalid("relay.max-in-flight-bytes", "must be positive", maxInFlightBytes);
        }
        requireBetween("relay.missing-topic-timeout", missingTopicTimeout, Duration.ofSeconds(1), Duration.ofDays(7));
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public RelayProperties(
            @Nullable Integer batchSize,
            @Nullable Integer maxInFlightBatches,
            @Nullable Integer publishConcurrency,
            @Nullable Duration leaseDuration,
            @Nullable Duration pollInterval,
            @Nullable Ordering ordering,
            @Nullable Duration claimLinger,
            @Nullable DataSize maxInFlightBytes,
            @Nullable Duration missingTopicTimeout) {
        this(
                orDefault(batchSize, DEFAULT_BATCH_SIZE).intValue(),
                orDefault(maxInFlightBatches, DEFAULT_MAX_IN_FLIGHT_BATCHES).intValue(),
                orDefault(publishConcurrency, DEFAULT_PUBLISH_CONCURRENCY).intValue(),
                orDefault(leaseDuration, DEFAULT_LEASE_DURATION),
                orDefault(pollInterval, DEFAULT_POLL_INTERVAL),
                orDefault(ordering, DEFAULT_ORDERING),
                orDefault(claimLinger, DEFAULT_CLAIM_LINGER),
                orDefault(maxInFlightBytes, DEFAULT_MAX_IN_FLIGHT_BYTES),
                orDefault(missingTopicTimeout, DEFAULT_MISSING_TOPIC_TIMEOUT));
    }

    public static RelayProperties defaults() {
        return new RelayProperties(null, null, null, null, null, (Ordering) null, (Duration) null, (DataSize) null,
                (Duration) null);
    }

    /** Whether the relay keeps the order of one key's messages; bound from {@code per-key} and {@code none}. */
    public enum Ordering {
        /** A key's messages are sent one lease at a time, in {@code seq} order. */
        PER_KEY,
        /** No ordering: maximum parallelism. */
        NONE
    }
}
