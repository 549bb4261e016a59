package dev.dispatcher.app.api;

/**
 * {@link IngestFaultsIT}'s races and faults with the producer's API token, whose single messages take the fast path
 * ({@link IngestFastPath}): same-id races, a lock wait that runs out and clients that hang up must end the same.
 */
class IngestFaultsFastPathIT extends IngestFaultsIT {

    @Override
    String producerAuthorization() {
        return "Bearer " + PRODUCER_TOKEN;
    }
}
