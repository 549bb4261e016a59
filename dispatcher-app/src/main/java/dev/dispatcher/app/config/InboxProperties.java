package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.quoted;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.source.Sources;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationPropertiesSource;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * {@code dispatcher.inbox.*}: Kafka consumers whose records are stored, deduplicated and handed to a handler.
 * Every consumer is validated here, with its index in each message; its retry block is checked against
 * {@code dispatcher.retry.*} by {@link DispatcherProperties}, which knows both.
 *
 * @param consumers the consumers ({@code dispatcher.inbox.consumers[i]}); names are unique
 */
public record InboxProperties(List<Consumer> consumers) {

    private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    private static final Pattern TOPIC_NAME = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    public InboxProperties {
        consumers = consumers == null ? List.of() : List.copyOf(consumers);
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < consumers.size(); i++) {
            String path = "inbox.consumers[" + i + "]";
            Consumer consumer = Objects.requireNonNull(consumers.get(i), DispatcherProperties.PREFIX + "." + path);
            if (consumer.name() == null || !CONSUMER_NAME.matcher(consumer.name()).matches()) {
                throw invalid(path + ".name",
                        "must be 1 to 200 letters, digits, '.', '_' or '-'", quoted(consumer.name()));
            }
            Integer earlier = names.putIfAbsent(consumer.name(), i);
            if (earlier != null) {
                throw invalid(path + ".name", "must be unique, same as [" + earlier + "]", quoted(consumer.name()));
            }
            consumer.validate(path);
        }
    }

    public static InboxProperties defaults() {
        return new InboxProperties(null);
    }

    /**
     * One inbox consumer; validated by {@link InboxProperties}, which knows its index. The tuning values are the
     * same knobs as the relay's; each absent one takes the {@code DEFAULT_*} beside it.
     *
     * @param name the consumer's name, part of the inbox key {@code (consumer_name, message_id)}: 1 to 200 letters,
     *     digits, '.', '_' or '-', unique
     * @param topics the Kafka topics it reads (at least one)
     * @param groupId the Kafka consumer group; defaults to {@code dispatcher-<name>}
     * @param handler the handler that processes stored records; defaults to {@code webhook} when a webhook is set
     * @param webhook where the {@code webhook} handler POSTs, or {@code null} when there is none
     * @param batchSize rows claimed per statement (1..10000)
     * @param concurrency handler invocations at once across the consumer's batches in flight (1..4096); an in-process
     *     handler holds one pooled connection each, so raise {@code spring.r2dbc.pool.max-size} with it
     * @param maxInFlightBatches claimed batches not yet finished (1..64)
     * @param leaseDuration lease length, renewed at a third of it while a message is unfinished (2s..1h)
     * @param handlerTimeout how long one handler invocation may run before it counts as a transient failure
     *     (1ms..1h)
     * @param maxBacklog live rows of this consumer at which intake pauses its partitions (1..100000000)
     * @param pollInterval wake-up of an idle consumer, and the re-check of paused intake (10ms..10min)
     * @param claimLinger least time between two claims unless the earlier came back full, as the relay's (0s..1s)
     * @param retry backoff and attempt limit of failed handlers; each absent value falls back to
     *     {@code dispatcher.retry.*}
     * @param maxPayloadSize the longest record value stored (1B..256MB); a longer record is stored dead-lettered
     *     without its value (a poison record), so its partition moves on
     * @param ordering {@code per-key}: a key's messages are handled one at a time, in offset order (the inbox's
     *     arrival order across topics and partitions); {@code none} (the default): in any order, concurrently
     * @param deadLetterTopic where a message the handler gives up on is also published (its value, key and headers
     *     with {@code dispatcher-dead-letter-reason}, {@code dispatcher-attempts} and {@code
     *     dispatcher-original-topic}) before its row turns {@code DEAD_LETTERED}; {@code {topic}} stands for the
     *     record's topic; checked at start-up against the consumer's topics (a topic name, not one it reads);
     *     empty (the default): off. Where the brokers create topics on first use, a dead-letter topic that does not
     *     exist is created by its first record
     */
    @ConfigurationPropertiesSource
    public record Consumer(String name, List<String> topics, String groupId, String handler, @Nullable Webhook webhook,
            int batchSize, int concurrency, int maxInFlightBatches, Duration leaseDuration, Duration handlerTimeout,
            long maxBacklog, Duration pollInterval, Duration claimLinger,
            @NestedConfigurationProperty RetryProperties.Overrides retry, DataSize maxPayloadSize,
            ConsumerOrdering ordering,
            String deadLetterTopic, String source) {

        /** The built-in handler that POSTs each record to {@link Webhook#url()}. */
        public static final String WEBHOOK_HANDLER = "webhook";
        public static final int DEFAULT_BATCH_SIZE = 100;
        /**
         * Handler invocations at once per consumer (docs/benchmarks.md, the inbox mode, measures it against its
         * receiver's ceiling at the same concurrency); an in-process handler holds one pooled connection per
         * invocation, so raise Boot's pool size ({@code spring.r2dbc.pool.max-size}) with it.
         */
        public static final int DEFAULT_CONCURRENCY = 16;
        public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 4;
        public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
        public static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofMinutes(2);
        public static final long DEFAULT_MAX_BACKLOG = 10_000;
        public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
        public static final Duration DEFAULT_CLAIM_LINGER = Duration.ofMillis(5);
        /** As ingest's default: Kafka's default {@code message.max.bytes} admits no longer value. */
        public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);
        /** A value is stored in one {@code bytea} and sent base64 in the batch insert. */
        public static final DataSize MAX_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(256);
        /** As before the option existed: a consumer's messages in any order, concurrently. */
        public static final ConsumerOrdering DEFAULT_ORDERING = ConsumerOrdering.NONE;
        /** The database of {@code spring.r2dbc.*}. */
        public static final String DEFAULT_SOURCE = Sources.DEFAULT;

        public Consumer {
            topics = topics == null ? List.of() : List.copyOf(topics);
            groupId = groupId == null ? "dispatcher-" + name : groupId;
            handler = handler == null && webhook != null ? WEBHOOK_HANDLER : handler;
            retry = retry == null ? RetryProperties.Overrides.NONE : retry;
            maxPayloadSize = maxPayloadSize == null ? DEFAULT_MAX_PAYLOAD_SIZE : maxPayloadSize;
            ordering = ordering == null ? DEFAULT_ORDERING : ordering;
            deadLetterTopic = deadLetterTopic == null ? "" : deadLetterTopic.strip();
            source = source == null ? DEFAULT_SOURCE : source;
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Consumer(String name, @Nullable List<String> topics, @Nullable String groupId,
                @Nullable String handler, @Nullable Webhook webhook, @Nullable Integer batchSize,
                @Nullable Integer concurrency, @Nullable Integer maxInFlightBatches, @Nullable Duration leaseDuration,
                @Nullable Duration handlerTimeout, @Nullable Long maxBacklog, @Nullable Duration pollInterval,
                @Nullable Duration claimLinger, RetryProperties.@Nullable Overrides retry,
                @Nullable DataSize maxPayloadSize, @Nullable ConsumerOrdering ordering,
                @Nullable String deadLetterTopic,
                @Nullable String source) {
            this(name, topics, groupId, handler, webhook,
                    orDefault(batchSize, DEFAULT_BATCH_SIZE).intValue(),
                    orDefault(concurrency, DEFAULT_CONCURRENCY).intValue(),
                    orDefault(maxInFlightBatches, DEFAULT_MAX_IN_FLIGHT_BATCHES).intValue(),
                    orDefault(leaseDuration, DEFAULT_LEASE_DURATION),
                    orDefault(handlerTimeout, DEFAULT_HANDLER_TIMEOUT),
                    orDefault(maxBacklog, DEFAULT_MAX_BACKLOG).longValue(),
                    orDefault(pollInterval, DEFAULT_POLL_INTERVAL),
                    orDefault(claimLinger, DEFAULT_CLAIM_LINGER),
                    retry,
                    maxPayloadSize,
                    orDefault(ordering, DEFAULT_ORDERING),
                    orDefault(deadLetterTopic, ""),
                    orDefault(source, DEFAULT_SOURCE));
        }

        /** A consumer of {@code topics} with every tuning default. */
        public static Consumer of(String name, List<String> topics, @Nullable String groupId, @Nullable String handler,
                @Nullable Webhook webhook) {
            return new Consumer(name, topics, groupId, handler, webhook, null, null, null, null, null, null, null,
                    null, null, null, null, null, null);
        }

        void validate(String path) {
            if (topics.isEmpty()) {
                throw invalid(path + ".topics", "must name at least one topic", "empty");
            }
            for (int t = 0; t < topics.size(); t++) {
                String topic = topics.get(t);
                if (topic == null || !TOPIC_NAME.matcher(topic).matches()) {
                    throw invalid(path + ".topics[" + t + "]",
                            "must be a Kafka topic name (1 to 249 letters, digits, '.', '_' or '-')", quoted(topic));
                }
            }
            if (groupId.isBlank()) {
                throw invalid(path + ".group-id", "must not be blank", quoted(groupId));
            }
            if (handler == null || handler.isBlank()) {
                throw invalid(path + ".handler", "must name a handler (or set webhook.url)", quoted(handler));
            }
            if (WEBHOOK_HANDLER.equals(handler) && webhook == null) {
                throw invalid(path + ".webhook.url", "must be set for the webhook handler", "absent");
            }
            if (webhook != null) {
                webhook.validate(path + ".webhook");
            }
            requireBetween(path + ".batch-size", batchSize, 1, 10_000);
            requireBetween(path + ".concurrency", concurrency, 1, 4096);
            requireBetween(path + ".max-in-flight-batches", maxInFlightBatches, 1, 64);
            requireBetween(path + ".lease-duration", leaseDuration, Duration.ofSeconds(2), Duration.ofHours(1));
            requireBetween(path + ".handler-timeout", handlerTimeout, Duration.ofMillis(1), Duration.ofHours(1));
            requireBetween(path + ".max-backlog", maxBacklog, 1, 100_000_000);
            requireBetween(path + ".poll-interval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(10));
            requireBetween(path + ".claim-linger", claimLinger, Duration.ZERO, Duration.ofSeconds(1));
            if (maxPayloadSize.toBytes() < 1 || maxPayloadSize.compareTo(MAX_MAX_PAYLOAD_SIZE) > 0) {
                throw invalid(path + ".max-payload-size", "must be between 1B and 256MB",
                        maxPayloadSize);
            }
            if (!deadLetterTopic.isEmpty()) {
                String problem = DeadLetterTopic.problem(deadLetterTopic).orElse(null);
                for (int t = 0; problem == null && t < topics.size(); t++) {
                    problem = new DeadLetterTopic(deadLetterTopic).problemFor(topics.get(t)).orElse(null);
                }
                if (problem != null) {
                    throw invalid(path + ".dead-letter-topic", problem, quoted(deadLetterTopic));
                }
            }
        }

        /** The dead-letter topic, or null when off. */
        public @Nullable DeadLetterTopic deadLetters() {
            return DeadLetterTopic.of(deadLetterTopic).orElse(null);
        }
    }

    /**
     * The target of the {@code webhook} handler.
     *
     * @param url an absolute {@code http} or {@code https} URL
     * @param timeout the time allowed for one POST (1ms..10min)
     */
    public record Webhook(URI url, Duration timeout) {

        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

        public Webhook {
            timeout = orDefault(timeout, DEFAULT_TIMEOUT);
        }

        void validate(String path) {
            if (url == null) {
                throw invalid(path + ".url", "must be set", "absent");
            }
            String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!url.isAbsolute() || url.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
                throw invalid(path + ".url", "must be an absolute http or https URL", quoted(url.toString()));
            }
            requireBetween(path + ".timeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(10));
        }
    }

    /**
     * An inbox consumer's ordering, bound from {@code per-key} and {@code none}: a consumer's key is one unit across
     * the topics it reads, so the relay's {@code per-key-across-topics} has no meaning here.
     */
    public enum ConsumerOrdering {
        /** A key's messages are handled one at a time, in the inbox's arrival order. */
        PER_KEY,
        /** In any order, concurrently. */
        NONE;

        /** As the leased queue knows it. */
        public dev.dispatcher.app.store.Ordering store() {
            return this == PER_KEY ? dev.dispatcher.app.store.Ordering.PER_KEY : dev.dispatcher.app.store.Ordering.NONE;
        }
    }
}
