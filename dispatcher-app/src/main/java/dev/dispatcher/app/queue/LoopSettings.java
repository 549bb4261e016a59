package dev.dispatcher.app.queue;

import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The knobs every claim loop has, the relay's and each inbox consumer's alike. Values are validated once, by the
 * configuration layer that names the property; this record only refuses what cannot be a setting at all.
 *
 * @param workerId lease owner name, also in logs and metrics warnings
 * @param batchSize rows per claim
 * @param maxInFlightBatches claimed batches not yet finished, at most (an exact counter, refilled as soon as a batch
 *     finishes): leased rows never exceed this x batch size
 * @param leaseDuration lease length; in-flight leases are renewed every third of it
 * @param pollInterval fallback wake-up when no notification arrives, the pause switch's re-check and the probe
 *     interval while the destination is unavailable
 * @param claimLinger least time between the starts of two claims unless the earlier came back full (stretched under
 *     a fast stream, {@link ClaimPacing#stretchedLinger})
 * @param retryPolicy backoff and attempt limit for failed attempts
 * @param drainTimeout how long {@link ClaimLoop#stop()} waits for in-flight batches
 * @param maxInFlightBytes payload bytes of claimed, unfinished batches, at most: a claim is given what the batches
 *     in flight leave of it ({@link LeasedQueue#claim(String, int, long, Duration)}), and none is made while they
 *     hold it all; a claim takes at least one row, so a row larger than what is left may pass it by that row
 */
public record LoopSettings(
        String workerId,
        int batchSize,
        int maxInFlightBatches,
        Duration leaseDuration,
        Duration pollInterval,
        Duration claimLinger,
        RetryPolicy retryPolicy,
        Duration drainTimeout,
        long maxInFlightBytes) {

    /** No bound on in-flight payload bytes beyond the row count: queues whose claims do not bound bytes. */
    public static final long UNBOUNDED_BYTES = Long.MAX_VALUE;

    /** Settings without a byte bound ({@link #UNBOUNDED_BYTES}). */
    public LoopSettings(String workerId, int batchSize, int maxInFlightBatches, Duration leaseDuration,
            Duration pollInterval, Duration claimLinger, RetryPolicy retryPolicy, Duration drainTimeout) {
        this(workerId, batchSize, maxInFlightBatches, leaseDuration, pollInterval, claimLinger, retryPolicy,
                drainTimeout, UNBOUNDED_BYTES);
    }

    public LoopSettings {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(claimLinger, "claimLinger");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        if (maxInFlightBytes < 1) {
            throw new IllegalArgumentException("maxInFlightBytes must be positive, but was " + maxInFlightBytes);
        }
    }

    /** How often in-flight leases are renewed. */
    public Duration renewEvery() {
        return leaseDuration.dividedBy(3);
    }
}
