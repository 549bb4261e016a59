package dev.dispatcher.load.mode;

import dev.dispatcher.app.config.RelayProperties;
import java.time.Duration;

/**
 * The relay settings a harness-configured relay runs with: {@code --batch-size}, {@code --in-flight}, {@code
 * --concurrency} and {@code --claim-linger-ms}, the service's defaults when absent and within the service's own
 * bounds ({@link RelayProperties}).
 *
 * @param batchSize {@code dispatcher.relay.batch-size}
 * @param inFlight {@code dispatcher.relay.max-in-flight-batches}
 * @param concurrency {@code dispatcher.relay.publish-concurrency}
 * @param claimLinger {@code dispatcher.relay.claim-linger}
 */
public record RelayTuning(int batchSize, int inFlight, int concurrency, Duration claimLinger) {

    /** The service's defaults. */
    public static final RelayTuning DEFAULTS = new RelayTuning(RelayProperties.DEFAULT_BATCH_SIZE,
            RelayProperties.DEFAULT_MAX_IN_FLIGHT_BATCHES, RelayProperties.DEFAULT_PUBLISH_CONCURRENCY,
            RelayProperties.DEFAULT_CLAIM_LINGER);

    static RelayTuning parse(Options o) {
        return new RelayTuning(o.integer("batch-size", DEFAULTS.batchSize, 1, 10_000),
                o.integer("in-flight", DEFAULTS.inFlight, 1, 64),
                o.integer("concurrency", DEFAULTS.concurrency, 1, 4096),
                claimLinger(o));
    }

    /** {@code --claim-linger-ms} alone. */
    static Duration claimLinger(Options o) {
        return o.duration("claim-linger-ms", DEFAULTS.claimLinger, Duration.ZERO, Duration.ofSeconds(1));
    }

    /** These settings with another batch size, publish concurrency and in-flight bound (a sweep's cell). */
    public RelayTuning with(int batch, int publishConcurrency, int inFlightBatches) {
        return new RelayTuning(batch, inFlightBatches, publishConcurrency, claimLinger);
    }
}
