package dev.dispatcher.app.ingest;

import java.util.Map;

/**
 * The ingest size limits, derived from {@code dispatcher.ingest.*} and checked against the Kafka producer when
 * built: a payload the API accepts must fit in one produce request, with {@link
 * IngestRequestParser#RECORD_OVERHEAD_MARGIN} left for key, headers and record overhead, or it would be certain to
 * fail on the relay.
 *
 * <p>Request bodies may be larger than the payload (JSON escaping, base64's 4/3): a single message's body may take
 * {@value #SINGLE_BODY_FACTOR} x the payload limit plus {@value #BODY_SLACK} bytes, a batch's
 * {@value #BATCH_BODY_FACTOR} x plus the same slack; larger bodies are refused ({@link IngestProblem.TooLarge}).
 */
record IngestLimits(long maxPayloadBytes, int maxBatchSize) {

    static final String MAX_REQUEST_SIZE = "max.request.size";
    /** Kafka's producer default of {@code max.request.size}. */
    static final long KAFKA_DEFAULT_MAX_REQUEST_SIZE = 1_048_576;
    static final int SINGLE_BODY_FACTOR = 4;
    static final int BATCH_BODY_FACTOR = 8;
    static final long BODY_SLACK = 64 * 1024;

    long singleBodyBytes() {
        return SINGLE_BODY_FACTOR * maxPayloadBytes + BODY_SLACK;
    }

    String singleBodyRule() {
        return SINGLE_BODY_FACTOR + " x dispatcher.ingest.max-payload-size + " + BODY_SLACK + " bytes";
    }

    long batchBodyBytes() {
        return BATCH_BODY_FACTOR * maxPayloadBytes + BODY_SLACK;
    }

    String batchBodyRule() {
        return BATCH_BODY_FACTOR + " x dispatcher.ingest.max-payload-size + " + BODY_SLACK + " bytes";
    }

    /**
     * The ingest budget of {@code dispatcher.ingest.max-queued-bytes}, {@code max-concurrent-requests} and {@code
     * max-concurrent-requests-per-client}.
     *
     * @throws IllegalStateException naming the property when the largest body allowed would never fit the budget
     */
    IngestBudget budget(long maxQueuedBytes, int maxConcurrentRequests, int maxConcurrentRequestsPerClient) {
        if (maxQueuedBytes < batchBodyBytes()) {
            throw new IllegalStateException("dispatcher.ingest.max-queued-bytes must be at least the largest request"
                    + " body (" + batchBodyRule() + " = " + batchBodyBytes() + " bytes), but was " + maxQueuedBytes
                    + " bytes; raise it or lower dispatcher.ingest.max-payload-size");
        }
        return new IngestBudget(maxQueuedBytes, maxConcurrentRequests, maxConcurrentRequestsPerClient);
    }

    /**
     * The limits, after checking them against the producer's properties.
     *
     * @throws IllegalStateException naming both properties when the payload limit does not fit
     */
    static IngestLimits checked(long maxPayloadBytes, int maxBatchSize, Map<String, Object> producerProperties) {
        Object configured = producerProperties.get(MAX_REQUEST_SIZE);
        long maxRequestSize;
        try {
            maxRequestSize = configured == null ? KAFKA_DEFAULT_MAX_REQUEST_SIZE
                    : Long.parseLong(configured.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("spring.kafka.producer.properties[max.request.size] must be a number of"
                    + " bytes, but was '" + configured + "'");
        }
        long allowed = maxRequestSize - IngestRequestParser.RECORD_OVERHEAD_MARGIN;
        if (maxPayloadBytes > allowed) {
            throw new IllegalStateException("dispatcher.ingest.max-payload-size must be at most the Kafka producer's"
                    + " max.request.size (" + maxRequestSize + " bytes) minus " + IngestRequestParser.RECORD_OVERHEAD_MARGIN
                    + " bytes for key, headers and record overhead, that is " + allowed + " bytes, but was "
                    + maxPayloadBytes + " bytes; lower it or raise spring.kafka.producer.properties[max.request.size]");
        }
        return new IngestLimits(maxPayloadBytes, maxBatchSize);
    }
}
