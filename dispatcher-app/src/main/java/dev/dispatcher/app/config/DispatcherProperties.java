package dev.dispatcher.app.config;

import dev.dispatcher.domain.DeliveryTime;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.util.unit.DataSize;

/**
 * Dispatcher's own configuration, bound from {@code dispatcher.*}; the names are a public contract (DESIGN.md,
 * "Configuration").
 *
 * <p>Immutable. Every block is optional: an absent block, list or value takes the default named by the
 * {@code DEFAULT_*} constant beside it. Validation runs in the constructors, so an instance that exists is valid;
 * a bad value fails with an {@link IllegalArgumentException} whose message names the full property and the bad
 * value ({@code dispatcher.relay.batch-size must be between 1 and 10000, but was 0}), which Spring Boot reports
 * when it refuses to start. Secrets (passwords, token hashes) are never printed, neither by {@code toString} nor in
 * validation messages.
 *
 * @param workerId this instance's name in leases and logs, and in the database {@code application_name};
 *     defaults to {@code <hostname>-<pid>}
 * @param schema the PostgreSQL schema that holds Dispatcher's tables; an unquoted identifier
 * @param relay the outbox relay
 * @param retry backoff and attempt limit for failed sends
 * @param retention how long finished rows and audit entries are kept
 * @param ingest limits of the HTTP ingest API
 * @param demo the built-in demo producer
 * @param security HTTP Basic users and Bearer API tokens
 * @param inbox Kafka consumers feeding the inbox
 */
@ConfigurationProperties(DispatcherProperties.PREFIX)
public record DispatcherProperties(
        String workerId,
        String schema,
        Relay relay,
        Retry retry,
        Retention retention,
        Ingest ingest,
        Demo demo,
        Security security,
        Inbox inbox) {

    /** The prefix of every property bound here. */
    public static final String PREFIX = "dispatcher";

    public static final String DEFAULT_SCHEMA = "dispatcher";

    /** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
    public static final int MAX_IDENTIFIER_LENGTH = 63;

    private static final Pattern UNQUOTED_IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

    /** Validates, and fills every absent value with its default. */
    public DispatcherProperties {
        if (workerId == null) {
            workerId = defaultWorkerId();
        } else if (workerId.isBlank()) {
            throw invalid("worker-id", "must not be blank", quoted(workerId));
        }
        schema = schema == null ? DEFAULT_SCHEMA : schema;
        if (schema.length() > MAX_IDENTIFIER_LENGTH || !UNQUOTED_IDENTIFIER.matcher(schema).matches()) {
            throw invalid("schema", "must be an unquoted PostgreSQL identifier (lowercase letters, digits and"
                    + " underscores, not starting with a digit, at most " + MAX_IDENTIFIER_LENGTH + " characters)",
                    quoted(schema));
        }
        relay = relay == null ? Relay.defaults() : relay;
        retry = retry == null ? Retry.defaults() : retry;
        retention = retention == null ? Retention.defaults() : retention;
        ingest = ingest == null ? Ingest.defaults() : ingest;
        demo = demo == null ? Demo.defaults() : demo;
        security = security == null ? Security.defaults() : security;
        inbox = inbox == null ? Inbox.defaults() : inbox;
    }

    /** Every default; the worker id is {@code <hostname>-<pid>}. */
    public static DispatcherProperties defaults() {
        return new DispatcherProperties(null, null, null, null, null, null, null, null, null);
    }

    /** The PostgreSQL {@code application_name} of this worker's connections: {@code dispatcher-<worker-id>}. */
    public String applicationName() {
        return "dispatcher-" + workerId;
    }

    /**
     * {@code <hostname>-<pid>}. The host name comes from {@code HOSTNAME} when set (containers), else from the
     * resolver; binding happens at start-up on the main thread, never on an event loop.
     */
    static String defaultWorkerId() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return host + "-" + ProcessHandle.current().pid();
    }

    /**
     * The outbox relay: how much it leases and sends at once, and how it waits for work.
     *
     * @param batchSize rows claimed per statement
     * @param maxInFlightBatches leased batches not yet finished; bounds leased rows to this x batch size
     * @param publishConcurrency Kafka sends awaiting acknowledgement
     * @param leaseDuration how long a claim is exclusive before another worker may take it over
     * @param pollInterval the fallback wake-up when no notification arrives
     * @param ordering whether messages of one key are sent in order
     * @param claimLinger least time between two claims unless the earlier came back full: under a trickle of
     *     inserts, rows arriving within it share one claim instead of one claim each
     */
    public record Relay(
            int batchSize,
            int maxInFlightBatches,
            int publishConcurrency,
            Duration leaseDuration,
            Duration pollInterval,
            Ordering ordering,
            Duration claimLinger) {

        public static final int DEFAULT_BATCH_SIZE = 500;
        public static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 4;
        public static final int DEFAULT_PUBLISH_CONCURRENCY = 64;
        public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);
        public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
        public static final Ordering DEFAULT_ORDERING = Ordering.PER_KEY;
        public static final Duration DEFAULT_CLAIM_LINGER = Duration.ofMillis(5);

        public Relay {
            requireBetween("relay.batch-size", batchSize, 1, 10_000);
            requireBetween("relay.max-in-flight-batches", maxInFlightBatches, 1, 64);
            requireBetween("relay.publish-concurrency", publishConcurrency, 1, 4096);
            requireBetween("relay.lease-duration", leaseDuration, Duration.ofSeconds(2), Duration.ofHours(1));
            requireBetween("relay.poll-interval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(10));
            Objects.requireNonNull(ordering, "dispatcher.relay.ordering");
            requireBetween("relay.claim-linger", claimLinger, Duration.ZERO, Duration.ofSeconds(1));
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Relay(
                @Nullable Integer batchSize,
                @Nullable Integer maxInFlightBatches,
                @Nullable Integer publishConcurrency,
                @Nullable Duration leaseDuration,
                @Nullable Duration pollInterval,
                @Nullable Ordering ordering,
                @Nullable Duration claimLinger) {
            this(
                    orDefault(batchSize, DEFAULT_BATCH_SIZE).intValue(),
                    orDefault(maxInFlightBatches, DEFAULT_MAX_IN_FLIGHT_BATCHES).intValue(),
                    orDefault(publishConcurrency, DEFAULT_PUBLISH_CONCURRENCY).intValue(),
                    orDefault(leaseDuration, DEFAULT_LEASE_DURATION),
                    orDefault(pollInterval, DEFAULT_POLL_INTERVAL),
                    orDefault(ordering, DEFAULT_ORDERING),
                    orDefault(claimLinger, DEFAULT_CLAIM_LINGER));
        }

        public static Relay defaults() {
            return new Relay(null, null, null, null, null, (Ordering) null, (Duration) null);
        }
    }

    /** Whether the relay keeps the order of one key's messages; bound from {@code per-key} and {@code none}. */
    public enum Ordering {
        /** A key's messages are sent one lease at a time, in {@code seq} order. */
        PER_KEY,
        /** No ordering: maximum parallelism. */
        NONE
    }

    /**
     * Backoff between attempts of a failed send, and the attempt limit before dead-lettering.
     *
     * @param initialDelay the ceiling of the first retry delay
     * @param maxDelay the cap of every delay
     * @param multiplier growth of the ceiling per attempt
     * @param jitter how a delay is drawn below its ceiling ({@code full}, {@code decorrelated}, {@code none})
     * @param maxAttempts attempts before a message is dead-lettered
     */
    public record Retry(Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter, int maxAttempts) {

        public static final Duration DEFAULT_INITIAL_DELAY = RetryPolicy.DEFAULT_INITIAL_DELAY;
        public static final Duration DEFAULT_MAX_DELAY = RetryPolicy.DEFAULT_MAX_DELAY;
        public static final double DEFAULT_MULTIPLIER = RetryPolicy.DEFAULT_MULTIPLIER;
        public static final Jitter DEFAULT_JITTER = RetryPolicy.DEFAULT_JITTER;
        public static final int DEFAULT_MAX_ATTEMPTS = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

        public Retry {
            Objects.requireNonNull(initialDelay, "dispatcher.retry.initial-delay");
            Objects.requireNonNull(maxDelay, "dispatcher.retry.max-delay");
            Objects.requireNonNull(jitter, "dispatcher.retry.jitter");
            requirePositive("retry.initial-delay", initialDelay);
            if (initialDelay.compareTo(Duration.ofMillis(1)) < 0) {
                throw invalid("retry.initial-delay", "must be at least 1ms", format(initialDelay));
            }
            if (maxDelay.compareTo(RetryPolicy.MAX_DELAY_LIMIT) > 0) {
                throw invalid("retry.max-delay", "must be at most " + format(RetryPolicy.MAX_DELAY_LIMIT),
                        format(maxDelay));
            }
            if (maxDelay.compareTo(initialDelay) < 0) {
                throw invalid("retry.max-delay",
                        "must be at least dispatcher.retry.initial-delay (" + format(initialDelay) + ")",
                        format(maxDelay));
            }
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw invalid("retry.multiplier", "must be a finite number of at least 1", multiplier);
            }
            requireBetween("retry.max-attempts", maxAttempts, 1, 1000);
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Retry(
                @Nullable Duration initialDelay,
                @Nullable Duration maxDelay,
                @Nullable Double multiplier,
                @Nullable Jitter jitter,
                @Nullable Integer maxAttempts) {
            this(
                    orDefault(initialDelay, DEFAULT_INITIAL_DELAY),
                    orDefault(maxDelay, DEFAULT_MAX_DELAY),
                    orDefault(multiplier, DEFAULT_MULTIPLIER).doubleValue(),
                    orDefault(jitter, DEFAULT_JITTER),
                    orDefault(maxAttempts, DEFAULT_MAX_ATTEMPTS).intValue());
        }

        public static Retry defaults() {
            return new Retry(null, null, null, null, (Integer) null);
        }

        /**
         * The domain policy with these settings.
         *
         * @param random the jitter source; one that is not thread-safe must not be shared across threads
         */
        public RetryPolicy toPolicy(RandomGenerator random) {
            return RetryPolicy.of(initialDelay, maxDelay, multiplier, jitter, maxAttempts, random);
        }
    }

    /**
     * How long rows are kept after they finish; the retention job deletes older ones.
     *
     * @param delivered delivered outbox rows; also the window in which a repeated ingest id is recognised
     * @param deadLettered dead-lettered outbox rows
     * @param inboxCompleted completed inbox rows: the inbox's deduplication window
     * @param audit operator audit entries
     */
    public record Retention(Duration delivered, Duration deadLettered, Duration inboxCompleted, Duration audit) {

        public static final Duration DEFAULT_DELIVERED = Duration.ofDays(7);
        public static final Duration DEFAULT_DEAD_LETTERED = Duration.ofDays(30);
        public static final Duration DEFAULT_INBOX_COMPLETED = Duration.ofDays(7);
        public static final Duration DEFAULT_AUDIT = Duration.ofDays(90);

        /** Validates; an absent value takes its default. */
        public Retention {
            delivered = orDefault(delivered, DEFAULT_DELIVERED);
            deadLettered = orDefault(deadLettered, DEFAULT_DEAD_LETTERED);
            inboxCompleted = orDefault(inboxCompleted, DEFAULT_INBOX_COMPLETED);
            audit = orDefault(audit, DEFAULT_AUDIT);
            requirePositive("retention.delivered", delivered);
            requirePositive("retention.dead-lettered", deadLettered);
            requirePositive("retention.inbox-completed", inboxCompleted);
            requirePositive("retention.audit", audit);
        }

        public static Retention defaults() {
            return new Retention(null, null, null, null);
        }
    }

    /**
     * Limits of the HTTP ingest API.
     *
     * @param maxPayloadSize the largest accepted payload (checked against the producer's {@code max.request.size})
     * @param maxBatchSize the most messages in one {@code POST /v1/messages/batch}
     * @param maxBacklog pending outbox rows above which ingest answers 429
     * @param maxDelay how far ahead a message's {@code deliverAt}/{@code delay} may reach (a delayed message holds
     *     back its key and counts in the backlog until then)
     * @param writers lanes writing ingested messages, each with at most one statement in flight; requests that
     *     wait for a lane are written together by its next statement
     * @param timeout how long a request may wait for its lane; past it, it answers 503 without being written
     */
    public record Ingest(DataSize maxPayloadSize, int maxBatchSize, long maxBacklog, Duration maxDelay, int writers,
            Duration timeout) {

        public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);
        public static final int DEFAULT_MAX_BATCH_SIZE = 500;
        public static final long DEFAULT_MAX_BACKLOG = 1_000_000L;
        public static final Duration DEFAULT_MAX_DELAY = DeliveryTime.DEFAULT_MAX_DELAY;
        public static final int DEFAULT_WRITERS = 4;
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

        public Ingest {
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
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Ingest(@Nullable DataSize maxPayloadSize, @Nullable Integer maxBatchSize, @Nullable Long maxBacklog,
                @Nullable Duration maxDelay, @Nullable Integer writers, @Nullable Duration timeout) {
            this(
                    orDefault(maxPayloadSize, DEFAULT_MAX_PAYLOAD_SIZE),
                    orDefault(maxBatchSize, DEFAULT_MAX_BATCH_SIZE).intValue(),
                    orDefault(maxBacklog, DEFAULT_MAX_BACKLOG).longValue(),
                    orDefault(maxDelay, DEFAULT_MAX_DELAY),
                    orDefault(writers, DEFAULT_WRITERS).intValue(),
                    orDefault(timeout, DEFAULT_TIMEOUT));
        }

        public static Ingest defaults() {
            return new Ingest(null, null, (Long) null, null, null, null);
        }
    }

    /**
     * The built-in demo producer, which writes sample messages to the outbox.
     *
     * @param enabled whether it runs
     * @param rate messages per second
     */
    public record Demo(boolean enabled, double rate) {

        public static final boolean DEFAULT_ENABLED = false;
        public static final double DEFAULT_RATE = 20.0;

        public Demo {
            if (!(rate >= 0.1 && rate <= 100_000)) {
                throw invalid("demo.rate", "must be between 0.1 and 100000 messages per second", rate);
            }
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Demo(@Nullable Boolean enabled, @Nullable Double rate) {
            this(orDefault(enabled, DEFAULT_ENABLED).booleanValue(), orDefault(rate, DEFAULT_RATE).doubleValue());
        }

        public static Demo defaults() {
            return new Demo(null, (Double) null);
        }
    }

    /** The roles a user or token can hold. */
    public static final Set<String> ROLES = Set.of("PRODUCER", "OPERATOR");

    /**
     * HTTP Basic users and Bearer API tokens. Names are unique per list; roles are upper-cased.
     *
     * @param users HTTP Basic users ({@code dispatcher.security.users[i]})
     * @param tokens Bearer API tokens ({@code dispatcher.security.tokens[i]})
     * @param publicPrometheus whether {@code /actuator/prometheus} may be scraped without credentials
     *     ({@code dispatcher.security.public-prometheus}, default {@code false}: OPERATOR only)
     */
    public record Security(List<User> users, List<Token> tokens, boolean publicPrometheus) {

        public static final boolean DEFAULT_PUBLIC_PROMETHEUS = false;

        /** Users and tokens; Prometheus scraping needs an OPERATOR. */
        public Security(List<User> users, List<Token> tokens) {
            this(users, tokens, DEFAULT_PUBLIC_PROMETHEUS);
        }

        /** The binding constructor: an absent value takes its default. */
        @ConstructorBinding
        public Security(@Nullable List<User> users, @Nullable List<Token> tokens, @Nullable Boolean publicPrometheus) {
            this(users, tokens, orDefault(publicPrometheus, DEFAULT_PUBLIC_PROMETHEUS).booleanValue());
        }

        public Security {
            users = users == null ? List.of() : List.copyOf(users);
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
            Map<String, Integer> names = new HashMap<>();
            for (int i = 0; i < users.size(); i++) {
                String path = "security.users[" + i + "]";
                User user = Objects.requireNonNull(users.get(i), PREFIX + "." + path);
                requireName(path + ".name", user.name(), names, i);
                if (user.password() == null || !SPRING_SECURITY_PASSWORD.matcher(user.password()).matches()) {
                    throw invalid(path + ".password",
                            "must be in Spring Security's {id} form, such as {bcrypt}$2a$10$... or {noop}secret",
                            user.password() == null ? "absent" : "a value without an {id} prefix");
                }
                requireRoles(path + ".roles", user.roles());
            }
            names.clear();
            for (int i = 0; i < tokens.size(); i++) {
                String path = "security.tokens[" + i + "]";
                Token token = Objects.requireNonNull(tokens.get(i), PREFIX + "." + path);
                requireName(path + ".name", token.name(), names, i);
                if (token.sha256() == null || !SHA256_HEX.matcher(token.sha256()).matches()) {
                    throw invalid(path + ".sha256", "must be 64 hexadecimal characters (the SHA-256 of the token)",
                            token.sha256() == null ? "absent" : "a value of " + token.sha256().length()
                                    + " characters" + (token.sha256().length() == 64 ? " that is not hexadecimal" : ""));
                }
                requireRoles(path + ".roles", token.roles());
            }
        }

        public static Security defaults() {
            return new Security(null, null);
        }

        private static void requireName(String path, String name, Map<String, Integer> seen, int index) {
            if (name == null || name.isBlank()) {
                throw invalid(path, "must not be blank", quoted(name));
            }
            Integer earlier = seen.putIfAbsent(name, index);
            if (earlier != null) {
                throw invalid(path, "must be unique, same as [" + earlier + "]", quoted(name));
            }
        }

        private static void requireRoles(String path, List<String> roles) {
            if (roles.isEmpty()) {
                throw invalid(path, "must name at least one of " + ROLE_LIST, "empty");
            }
            for (int i = 0; i < roles.size(); i++) {
                if (!ROLES.contains(roles.get(i))) {
                    throw invalid(path + "[" + i + "]", "must be one of " + ROLE_LIST, quoted(roles.get(i)));
                }
            }
        }
    }

    private static final String ROLE_LIST = "PRODUCER, OPERATOR";
    private static final Pattern SPRING_SECURITY_PASSWORD = Pattern.compile("\\{[^{}\\s]+}\\S.*", Pattern.DOTALL);
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    /**
     * An HTTP Basic user; validated by {@link Security}, which knows its index. The password is masked in
     * {@link #toString()}.
     *
     * @param name the user name
     * @param password the password in Spring Security's {@code {id}} form, e.g. {@code {bcrypt}$2a$10$...}
     * @param roles {@code PRODUCER} and/or {@code OPERATOR} (any case; stored upper-case)
     */
    public record User(String name, String password, List<String> roles) {

        public User {
            roles = upperCase(roles);
        }

        @Override
        public String toString() {
            return "User[name=" + name + ", password=" + MASK + ", roles=" + roles + "]";
        }
    }

    /**
     * A Bearer API token, stored as the SHA-256 of the token, so the token itself never sits in configuration;
     * validated by {@link Security}. The hash is masked in {@link #toString()}.
     *
     * @param name who holds the token (shown in audit entries)
     * @param sha256 the hex SHA-256 of the token
     * @param roles {@code PRODUCER} and/or {@code OPERATOR} (any case; stored upper-case)
     */
    public record Token(String name, String sha256, List<String> roles) {

        public Token {
            roles = upperCase(roles);
        }

        @Override
        public String toString() {
            return "Token[name=" + name + ", sha256=" + MASK + ", roles=" + roles + "]";
        }
    }

    /**
     * The inbox: Kafka consumers whose records are stored, deduplicated and handed to a handler.
     *
     * @param consumers the consumers ({@code dispatcher.inbox.consumers[i]}); names are unique
     */
    public record Inbox(List<Consumer> consumers) {

        private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");
        private static final Pattern TOPIC_NAME = Pattern.compile("[A-Za-z0-9._-]{1,249}");

        public Inbox {
            consumers = consumers == null ? List.of() : List.copyOf(consumers);
            Map<String, Integer> names = new HashMap<>();
            for (int i = 0; i < consumers.size(); i++) {
                String path = "inbox.consumers[" + i + "]";
                Consumer consumer = Objects.requireNonNull(consumers.get(i), PREFIX + "." + path);
                if (consumer.name() == null || !CONSUMER_NAME.matcher(consumer.name()).matches()) {
                    throw invalid(path + ".name",
                            "must be 1 to 200 letters, digits, '.', '_' or '-'", quoted(consumer.name()));
                }
                Integer earlier = names.putIfAbsent(consumer.name(), i);
                if (earlier != null) {
                    throw invalid(path + ".name", "must be unique, same as [" + earlier + "]",
                            quoted(consumer.name()));
                }
                if (consumer.topics().isEmpty()) {
                    throw invalid(path + ".topics", "must name at least one topic", "empty");
                }
                for (int t = 0; t < consumer.topics().size(); t++) {
                    String topic = consumer.topics().get(t);
                    if (topic == null || !TOPIC_NAME.matcher(topic).matches()) {
                        throw invalid(path + ".topics[" + t + "]",
                                "must be a Kafka topic name (1 to 249 letters, digits, '.', '_' or '-')",
                                quoted(topic));
                    }
                }
                if (consumer.groupId().isBlank()) {
                    throw invalid(path + ".group-id", "must not be blank", quoted(consumer.groupId()));
                }
                if (consumer.handler() == null || consumer.handler().isBlank()) {
                    throw invalid(path + ".handler", "must name a handler (or set webhook.url)",
                            quoted(consumer.handler()));
                }
                if (Consumer.WEBHOOK_HANDLER.equals(consumer.handler()) && consumer.webhook() == null) {
                    throw invalid(path + ".webhook.url", "must be set for the webhook handler", "absent");
                }
                if (consumer.webhook() != null) {
                    consumer.webhook().validate(path + ".webhook");
                }
            }
        }

        public static Inbox defaults() {
            return new Inbox(null);
        }
    }

    /**
     * One inbox consumer; validated by {@link Inbox}, which knows its index.
     *
     * @param name the consumer's name, part of the inbox key {@code (consumer_name, message_id)}
     * @param topics the Kafka topics it reads
     * @param groupId the Kafka consumer group; defaults to {@code dispatcher-<name>}
     * @param handler the handler that processes stored records; defaults to {@code webhook} when a webhook is set
     * @param webhook where the {@code webhook} handler POSTs, or {@code null} when there is none
     */
    public record Consumer(String name, List<String> topics, String groupId, String handler,
            @Nullable Webhook webhook) {

        /** The built-in handler that POSTs each record to {@link Webhook#url()}. */
        public static final String WEBHOOK_HANDLER = "webhook";

        public Consumer {
            topics = topics == null ? List.of() : List.copyOf(topics);
            groupId = groupId == null ? "dispatcher-" + name : groupId;
            handler = handler == null && webhook != null ? WEBHOOK_HANDLER : handler;
        }
    }

    /**
     * The target of the {@code webhook} handler.
     *
     * @param url an absolute {@code http} or {@code https} URL
     * @param timeout the time allowed for one POST
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

    // ---- validation support -------------------------------------------------------------------------------

    private static final String MASK = "******";

    private static IllegalArgumentException invalid(String relativeName, String rule, Object value) {
        return new IllegalArgumentException(PREFIX + "." + relativeName + " " + rule + ", but was " + value);
    }

    private static void requireBetween(String relativeName, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(relativeName, "must be between " + min + " and " + max, value);
        }
    }

    private static void requireBetween(String relativeName, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, PREFIX + "." + relativeName);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw invalid(relativeName, "must be between " + format(min) + " and " + format(max), format(value));
        }
    }

    private static void requirePositive(String relativeName, Duration value) {
        Objects.requireNonNull(value, PREFIX + "." + relativeName);
        if (value.isNegative() || value.isZero()) {
            throw invalid(relativeName, "must be positive", format(value));
        }
    }

    private static String quoted(@Nullable String value) {
        return value == null ? "absent" : "'" + value + "'";
    }

    private static List<String> upperCase(@Nullable List<String> values) {
        if (values == null) {
            return List.of();
        }
        List<String> result = new ArrayList<>(values.size());
        for (String value : values) {
            result.add(value == null ? null : value.trim().toUpperCase(Locale.ROOT));
        }
        return java.util.Collections.unmodifiableList(result);
    }

    private static <T> T orDefault(@Nullable T value, T fallback) {
        return value == null ? fallback : value;
    }

    /** A duration the way it is written in configuration: {@code 30s}, {@code 10ms}, {@code 1h}. */
    static String format(Duration value) {
        if (value.isZero()) {
            return "0s";
        }
        long nanos = value.toNanosPart();
        if (nanos % 1_000_000 != 0) {
            return value.toNanos() + "ns";
        }
        if (nanos != 0) {
            return value.toMillis() + "ms";
        }
        long seconds = value.getSeconds();
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }
}
