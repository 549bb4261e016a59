package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
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
 * @param maxInFlightBatches leased batches not yet finished (1..64); bounds leased rows to this x batch size; with
 *     several sources each source's relay holds an even share (at least one), so none starves under a backlog
 * @param publishConcurrency key runs of one batch published at once (1..4096)
 * @param leaseDuration how long a claim is exclusive before another worker may take it over (2s..1h); renewed at a
 *     third of it
 * @param pollInterval the fallback wake-up when no notification arrives, the breaker's probe interval, and, per key,
 *     the longest wait between empty claims behind keys held by batches in flight (10ms..10min)
 * @param ordering whether messages of one key are sent in order: {@code per-key} (the default) orders a key's
 *     messages within each topic, the unit of order is {@code (topic, key)} (one lease at a time per key and topic, in
 *     {@code seq} order; a key's failing head in one topic never holds its messages in another); {@code
 *     per-key-across-topics} orders a key's messages across every topic (one lease at a time per key); {@code none}
 *     orders nothing
 * @param claimLinger least time between two claims unless the earlier came back full (0s..1s): under a trickle of
 *     inserts, rows arriving within it share one claim instead of one claim each; under a stream faster than 500 rows
 *     a second the claim loop stretches it with the rate, up to 4 times ({@code ClaimPacing.stretchedLinger})
 * @param maxInFlightBytes payload bytes of claimed, unfinished batches, at most: a claim takes fewer rows when
 *     payloads are large (one row larger than what is left still goes alone), so the relay's memory is bounded by
 *     bytes as well as by {@code max-in-flight-batches x batch-size} rows; shared evenly by the sources as
 *     {@code max-in-flight-batches} is
 * @param missingTopicTimeout how long a topic may be missing (seen so by one instance, without a break) before its
 *     rows are dead-lettered with the cause; until then they are held back, attempts unspent. Where the brokers
 *     create topics on first use ({@code auto.create.topics.enable=true}, learned from the cluster: nothing to set),
 *     a missing topic is created by the producer's metadata request and its rows are delivered; the timeout then
 *     holds only for a topic that is not created (the principal may not create it)
 * @param format the records' format: {@code plain} (Dispatcher's headers, the payload as the value),
 *     {@code cloudevents-binary} or {@code cloudevents-structured} (CloudEvents Kafka protocol binding 1.0)
 * @param cloudevents the CloudEvents attributes the configuration gives: {@code source}, required with a CloudEvents
 *     format
 * @param deadLetterTopic where a dead-lettered row is also published (its record in the relay's format, with {@code
 *     dispatcher-dead-letter-reason}, {@code dispatcher-attempts} and {@code dispatcher-original-topic}) before its
 *     row turns {@code DEAD_LETTERED}; {@code {topic}} stands for the row's topic; empty (the default): off. Where
 *     the brokers create topics on first use, a dead-letter topic that does not exist is created by its first record
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
        Duration missingTopicTimeout,
        Format format,
        CloudEvents cloudevents,
        String deadLetterTopic) {

    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 4;
    public static final int DEFAULT_PUBLISH_CONCURRENCY = 64;
    public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    public static final Ordering DEFAULT_ORDERING = Ordering.PER_KEY;
    public static final Duration DEFAULT_CLAIM_LINGER = Duration.ofMillis(5);
    public static final DataSize DEFAULT_MAX_IN_FLIGHT_BYTES = DataSize.ofMegabytes(64);
    public static final Duration DEFAULT_MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);
    /** Today's records, as before the option existed. */
    public static final Format DEFAULT_FORMAT = Format.PLAIN;

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
        Objects.requireNonNull(format, "dispatcher.relay.format");
        cloudevents = cloudevents == null ? CloudEvents.NONE : cloudevents;
        if (format != Format.PLAIN && cloudevents.source() == null) {
            throw PropertyRules.invalid("relay.cloudevents.source", "must be set (a URI reference, the events'"
                    + " source) when dispatcher.relay.format is " + format.value(), "absent");
        }
        deadLetterTopic = deadLetterTopic == null ? "" : deadLetterTopic.strip();
        if (!deadLetterTopic.isEmpty()) {
            String problem = DeadLetterTopic.problem(deadLetterTopic).orElse(null);
            if (problem != null) {
                throw PropertyRules.invalid("relay.dead-letter-topic", problem, PropertyRules.quoted(deadLetterTopic));
            }
        }
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
            @Nullable Duration missingTopicTimeout,
            @Nullable Format format,
            @Nullable CloudEvents cloudevents,
            @Nullable String deadLetterTopic) {
        this(
                orDefault(batchSize, DEFAULT_BATCH_SIZE).intValue(),
                orDefault(maxInFlightBatches, DEFAULT_MAX_IN_FLIGHT_BATCHES).intValue(),
                orDefault(publishConcurrency, DEFAULT_PUBLISH_CONCURRENCY).intValue(),
                orDefault(leaseDuration, DEFAULT_LEASE_DURATION),
                orDefault(pollInterval, DEFAULT_POLL_INTERVAL),
                orDefault(ordering, DEFAULT_ORDERING),
                orDefault(claimLinger, DEFAULT_CLAIM_LINGER),
                orDefault(maxInFlightBytes, DEFAULT_MAX_IN_FLIGHT_BYTES),
                orDefault(missingTopicTimeout, DEFAULT_MISSING_TOPIC_TIMEOUT),
                orDefault(format, DEFAULT_FORMAT),
                orDefault(cloudevents, CloudEvents.NONE),
                orDefault(deadLetterTopic, ""));
    }

    public static RelayProperties defaults() {
        return new RelayProperties(null, null, null, null, null, (Ordering) null, (Duration) null, (DataSize) null,
                (Duration) null, (Format) null, null, null);
    }

    /** The dead-letter topic, or null when off. */
    public @Nullable DeadLetterTopic deadLetters() {
        return DeadLetterTopic.of(deadLetterTopic).orElse(null);
    }

    /**
     * How the relay writes its records; bound from {@code plain}, {@code cloudevents-binary} and {@code
     * cloudevents-structured}.
     */
    public enum Format {
        /** The payload as the value, Dispatcher's headers ({@code message-id}, {@code event-type}, ...). */
        PLAIN,
        /** A CloudEvent in binary content mode: the payload as the value, the attributes as {@code ce_} headers. */
        CLOUDEVENTS_BINARY,
        /** A CloudEvent in structured content mode: the event as JSON in the value. */
        CLOUDEVENTS_STRUCTURED;

        /** The value as it is configured: {@code cloudevents-binary}. */
        public String value() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * {@code dispatcher.relay.cloudevents.*}: the CloudEvents attributes the configuration gives.
     *
     * @param source every event's {@code source}: a URI reference ({@code /orders}, {@code
     *     https://shop.example/orders}, {@code urn:shop:orders}), or null (unset)
     */
    public record CloudEvents(@Nullable String source) {

        static final CloudEvents NONE = new CloudEvents(null);

        public CloudEvents {
            source = source == null || source.isBlank() ? null : source.strip();
            if (source != null) {
                try {
                    new URI(source);
                } catch (URISyntaxException e) {
                    throw PropertyRules.invalid("relay.cloudevents.source", "must be a URI reference ("
                            + e.getReason() + " at index " + e.getIndex() + ")", PropertyRules.quoted(source));
                }
            }
        }

        /** The source as a URI; only when set. */
        public URI sourceUri() {
            return URI.create(Objects.requireNonNull(source, "dispatcher.relay.cloudevents.source"));
        }
    }

    /**
     * Whether the relay keeps the order of one key's messages; bound from {@code per-key}, {@code
     * per-key-across-topics} and {@code none} (any other value fails start-up naming {@code
     * dispatcher.relay.ordering}).
     */
    public enum Ordering {
        /** A key's messages in one topic are sent one lease at a time, in {@code seq} order: the unit (topic, key). */
        PER_KEY,
        /** A key's messages in every topic are sent one lease at a time, in {@code seq} order: the unit is the key. */
        PER_KEY_ACROSS_TOPICS,
        /** No ordering: maximum parallelism. */
        NONE
    }
}
