package dev.dispatcher.app.api;

/** {@link IngestConcurrencyIT}'s lock races with the producer's API token, on the fast path ({@link IngestFastPath}). */
class IngestConcurrencyFastPathIT extends IngestConcurrencyIT {

    @Override
    String producerAuthorization() {
        return "Bearer " + PRODUCER_TOKEN;
    }
}
