package dev.dispatcher.load.bench;

import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.mode.RelayTuning;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings the harness gives a relay it configures (the in-process modes and {@code scale}; the blackbox modes
 * run the service's defaults), as service properties: the run's {@link RelayTuning} and ordering; a {@value
 * #POLL_INTERVAL_MS} ms poll interval and fast, bounded retries (100 ms doubling to 5 s, 10 attempts, full jitter),
 * as the harness's relays always had; a connection pool of at least two connections per in-flight batch and four more. {@code
 * -Ddispatcher.bench.producer-linger-ms=N} sets the producer's {@code linger.ms} (the service's default
 * otherwise), to measure what it trades.
 */
public final class HarnessRelay {

    /** The relay's {@code dispatcher.relay.poll-interval}. */
    public static final long POLL_INTERVAL_MS = 200;
    /** The service's own pool size ({@code spring.r2dbc.pool.max-size}), the least the harness gives it. */
    public static final int SERVICE_POOL_SIZE = 16;

    private HarnessRelay() {
    }

    /** The service's command-line properties for a relay with {@code tuning} and {@code ordering}. */
    public static List<String> arguments(RelayTuning tuning, Ordering ordering) {
        List<String> arguments = new ArrayList<>(List.of(
                "--dispatcher.relay.ordering=" + ordering.text(),
                "--dispatcher.relay.batch-size=" + tuning.batchSize(),
                "--dispatcher.relay.max-in-flight-batches=" + tuning.inFlight(),
                "--dispatcher.relay.publish-concurrency=" + tuning.concurrency(),
                "--dispatcher.relay.claim-linger=" + tuning.claimLinger().toMillis() + "ms",
                "--dispatcher.relay.poll-interval=" + POLL_INTERVAL_MS + "ms",
                "--dispatcher.retry.initial-delay=100ms",
                "--dispatcher.retry.max-delay=5s",
                "--dispatcher.retry.multiplier=2",
                "--dispatcher.retry.jitter=full",
                "--dispatcher.retry.max-attempts=10",
                "--spring.r2dbc.pool.max-size=" + Math.max(SERVICE_POOL_SIZE, tuning.inFlight() * 2 + 4)));
        Integer linger = Integer.getInteger("dispatcher.bench.producer-linger-ms");
        if (linger != null) {
            arguments.add("--spring.kafka.producer.properties[linger.ms]=" + linger);
        }
        return arguments;
    }
}
