package dev.dispatcher.app.inbox;

import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of one consumer's intake and processor. The configuration layer fills what
 * {@code dispatcher.*} names (worker id, retry, poll interval); the rest are the {@code DEFAULT_*} constants.
 *
 * @param consumer consumer name, part of the inbox key
 * @param workerId lease owner name, also in logs
 * @param batchSize rows per claim
 * @param concurrency messages handled at once; each transactional one holds a pooled connection
 * @param leaseDuration lease length; renewed at a third of it while a message is in flight
 * @param pollInterval wake-up of an idle processor, and the re-check interval of paused intake
 * @param retryPolicy backoff and attempt limit of failed handlers
 * @param maxBacklog live rows of this consumer at which intake pauses until the processor catches up
 * @param handlerTimeout how long one handler invocation may run before it counts as a transient failure
 * @param drainTimeout how long shutdown waits for in-flight messages
 */
public record InboxSettings(
        String consumer,
        String workerId,
        int batchSize,
        int concurrency,
        Duration leaseDuration,
        Duration pollInterval,
        RetryPolicy retryPolicy,
        long maxBacklog,
        Duration handlerTimeout,
        Duration drainTimeout) {

    public static final int DEFAULT_BATCH_SIZE = 64;
    /** Below Boot's default pool size (10), so the relay and intake keep connections. */
    public static final int DEFAULT_CONCURRENCY = 4;
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
    public static final long DEFAULT_MAX_BACKLOG = 10_000;
    public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofMinutes(2);
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

    public InboxSettings {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(handlerTimeout, "handlerTimeout");
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        if (batchSize < 1 || concurrency < 1 || maxBacklog < 1) {
            throw new IllegalArgumentException("inbox batch size, concurrency and max backlog must be >= 1, but were "
                    + batchSize + ", " + concurrency + ", " + maxBacklog);
        }
    }

    /** Settings with the defaults for everything {@code dispatcher.*} does not name. */
    public static InboxSettings of(String consumer, String workerId, Duration pollInterval, RetryPolicy retryPolicy) {
        return new InboxSettings(consumer, workerId, DEFAULT_BATCH_SIZE, DEFAULT_CONCURRENCY, DEFAULT_LEASE_DURATION,
                pollInterval, retryPolicy, DEFAULT_MAX_BACKLOG, DEFAULT_HANDLER_TIMEOUT, DEFAULT_DRAIN_TIMEOUT);
    }

    /** How often in-flight leases are renewed. */
    public Duration renewEvery() {
        return leaseDuration.dividedBy(3);
    }
}
