package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * {@code dispatcher.ingest.*}: limits of the HTTP ingest API.
 *
 * @param maxPayloadSize the largest accepted payload (checked against the producer's {@code max.request.size})
 * @param maxBatchSize the most messages in one {@code POST /v1/messages/batch}
 * @param maxBacklog pending outbox rows above which ingest answers 429
 */
public record IngestProperties(DataSize maxPayloadSize, int maxBatchSize, long maxBacklog) {

    public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);
    public static final int DEFAULT_MAX_BATCH_SIZE = 500;
    public static final long DEFAULT_MAX_BACKLOG = 1_000_000L;

    public IngestProperties {
        Objects.requireNonNull(maxPayloadSize, "dispatcher.ingest.max-payload-size");
        if (maxPayloadSize.toBytes() < 1) {
            throw invalid("ingest.max-payload-size", "must be positive", maxPayloadSize);
        }
        requireBetween("ingest.max-batch-size", maxBatchSize, 1, 10_000);
        if (maxBacklog < 1) {
            throw invalid("ingest.max-backlog", "must be at least 1", maxBacklog);
        }
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public IngestProperties(@Nullable DataSize maxPayloadSize, @Nullable Integer maxBatchSize, @Nullable Long maxBacklog) {
        this(
                orDefault(maxPayloadSize, DEFAULT_MAX_PAYLOAD_SIZE),
                orDefault(maxBatchSize, DEFAULT_MAX_BATCH_SIZE).intValue(),
                orDefault(maxBacklog, DEFAULT_MAX_BACKLOG).longValue());
    }

    public static IngestProperties defaults() {
        return new IngestProperties(null, null, (Long) null);
    }
}
