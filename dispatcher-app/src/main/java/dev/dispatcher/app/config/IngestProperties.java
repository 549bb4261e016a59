package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import dev.dispatcher.domain.DeliveryTime;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * {@code dispatcher.ingest.*}: limits of the HTTP ingest API.
 *
 * @param maxPayloadSize the largest accepted payload, larger ones answer 413 (checked at start-up against the
 *     producer's {@code max.request.size} less 32 KiB for key, headers and record overhead)
 * @param maxBatchSize the most messages in one {@code POST /v1/messages/batch} (1..10000); more answer 413
 * @param maxBacklog live outbox rows at which ingest answers 429 with {@code Retry-After} (at least 1)
 * @param maxDelay how far ahead a message's {@code deliverAt}/{@code delay} may reach (1s..365d; a delayed message
 *     holds back its key and counts in the backlog until then)
 * @param writers lanes writing single-key requests (1..64, keys spread by hash; plus one lane for multi-key
 *     batches), each with at most one statement in flight; requests that wait for a lane are written together by
 *     its next statement. One by default: a statement costs the same fixed work whatever it carries, so one lane
 *     writing everything waiting beats several writing smaller statements (measured in docs/measurements.md, "HTTP
 *     ingest, measured"); more lanes let a key's lock, held by a long application transaction, stall only their
 *     share of the keys.
 * @param timeout how long a request may wait for its lane (100ms..5m); past it, it answers 503 without being written
 * @param fastPath whether {@code POST /v1/messages} of an API token holder is answered without WebFlux's
 *     dispatch, Spring Security's filter chain and Spring's HTTP observation (same checks, same answer and the same
 *     {@code http.server.requests} timer; see docs/http-api.md, "The single-message fast path"); every other request
 *     goes the framework's way
 * @param maxQueuedBytes the most bytes of ingest requests held in memory at once (a body's first 64 KiB from its
 *     admission, the rest as it arrives, messages waiting for their lane or in a statement); a request whose declared
 *     length would pass it answers 503 with {@code Retry-After} before its body is read, one whose bytes pass it as
 *     they arrive answers 503 then. A slow body holds at most 64 KiB more than it sent, not what it declared. At
 *     least the largest request body (8 x {@code max-payload-size} + 64 KiB)
 * @param maxConcurrentRequests the most ingest requests answered at once (1..100000); past it a request answers
 *     503 with {@code Retry-After} before its body is read
 * @param readTimeout the longest pause between two reads of a request's body (Netty's read timeout, for every
 *     request of the server, counted from its headers until its body is complete, also while the service has not
 *     yet asked for the body; 100ms..1h): a client that stops sending mid-body has its connection closed
 * @param bodyTimeout the longest an ingest request's body may take to arrive, from its admission (100ms..1h): a
 *     body not complete by then is answered 408 ({@code body-timeout}), the connection closed and the bytes it held
 *     in {@code max-queued-bytes} released. Every other request of the server is bounded by Netty's request timeout,
 *     set to this plus 5 s
 */
public record IngestProperties(DataSize maxPayloadSize, int maxBatchSize, long maxBacklog, Duration maxDelay,
        int writers, Duration timeout, boolean fastPath, DataSize maxQueuedBytes, int maxConcurrentRequests,
        Duration readTimeout, Duration bodyTimeout, int maxConcurrentRequestsPerClient) {

    public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);
    public static final int DEFAULT_MAX_BATCH_SIZE = 500;
    public static final long DEFAULT_MAX_BACKLOG = 1_000_000L;
    public static final Duration DEFAULT_MAX_DELAY = DeliveryTime.DEFAULT_MAX_DELAY;
    public static final int DEFAULT_WRITERS = 1;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    public static final boolean DEFAULT_FAST_PATH = true;
    public static final DataSize DEFAULT_MAX_QUEUED_BYTES = DataSize.ofMegabytes(64);
    /** Far above what a few group-committing lanes need, far below what would exhaust a small heap's overhead. */
    public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 512;
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(10);

    public IngestProperties {
        Objects.requireNonNull(maxPayloadSize, "dispatcher.ingest.max-payload-size");
        if (maxPayloadSize.toBytes() < 1) {
            throw invalid("ingest.max-payload-size", "must be positive", maxPayloadSize);
        }
        requireBetween("ingest.max-batch-size", maxBatchSize, 1, 10_000);
        if (maxBacklog < 1) {
            throw invalid("ingest.max-backlog", "must be at least 1", maxBacklog);
        }
        requireBetween("ingest.max-delay", maxDelay, Duration.ofSeconds(1), Duration.ofDays(365));
        requireBetween("ingest.writers", writers, 1, 64);
        requireBetween("ingest.timeout", timeout, Duration.ofMillis(100), Duration.ofMinutes(5));
        Objects.requireNonNull(maxQueuedBytes, "dispatcher.ingest.max-queued-bytes");
        if (maxQueuedBytes.toBytes() < 1) {
            throw invalid("ingest.max-queued-bytes", "must be positive", maxQueuedBytes);
        }
        requireBetween("ingest.max-concurrent-requests", maxConcurrentRequests, 1, 100_000);
        requireBetween("ingest.read-timeout", readTimeout, Duration.ofMillis(100), Duration.ofHours(1));
        requireBetween("ingest.body-timeout", bodyTimeout, Duration.ofMillis(100), Duration.ofHours(1));
        if (maxConcurrentRequestsPerClient < 1 || maxConcurrentRequestsPerClient > maxConcurrentRequests) {
            throw invalid("ingest.max-concurrent-requests-per-client", "must be between 1 and"
                    + " dispatcher.ingest.max-concurrent-requests (" + maxConcurrentRequests + ")",
                    maxConcurrentRequestsPerClient);
        }
    }

    /** A quarter of {@code max-concurrent-requests}, at least 1: the default share of one client. */
    private static int defaultPerClient(int maxConcurrentRequests) {
        return Math.max(1, maxConcurrentRequests / 4);
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public IngestProperties(@Nullable DataSize maxPayloadSize, @Nullable Integer maxBatchSize, @Nullable Long maxBacklog,
            @Nullable Duration maxDelay, @Nullable Integer writers, @Nullable Duration timeout,
            @Nullable Boolean fastPath, @Nullable DataSize maxQueuedBytes, @Nullable Integer maxConcurrentRequests,
            @Nullable Duration readTimeout, @Nullable Duration bodyTimeout,
            @Nullable Integer maxConcurrentRequestsPerClient) {
        this(
                orDefault(maxPayloadSize, DEFAULT_MAX_PAYLOAD_SIZE),
                orDefault(maxBatchSize, DEFAULT_MAX_BATCH_SIZE).intValue(),
                orDefault(maxBacklog, DEFAULT_MAX_BACKLOG).longValue(),
                orDefault(maxDelay, DEFAULT_MAX_DELAY),
                orDefault(writers, DEFAULT_WRITERS).intValue(),
                orDefault(timeout, DEFAULT_TIMEOUT),
                orDefault(fastPath, DEFAULT_FAST_PATH).booleanValue(),
                orDefault(maxQueuedBytes, DEFAULT_MAX_QUEUED_BYTES),
                orDefault(maxConcurrentRequests, DEFAULT_MAX_CONCURRENT_REQUESTS).intValue(),
                orDefault(readTimeout, DEFAULT_READ_TIMEOUT),
                orDefault(bodyTimeout, DEFAULT_BODY_TIMEOUT),
                maxConcurrentRequestsPerClient != null ? maxConcurrentRequestsPerClient.intValue()
                        : defaultPerClient(orDefault(maxConcurrentRequests, DEFAULT_MAX_CONCURRENT_REQUESTS)));
    }

    public static IngestProperties defaults() {
        return new IngestProperties(null, null, (Long) null, null, null, null, null, null, null, null, null, null);
    }
}
