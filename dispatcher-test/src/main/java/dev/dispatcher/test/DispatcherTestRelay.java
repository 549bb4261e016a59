package dev.dispatcher.test;

import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.JvmProcess;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Dispatcher's relay for an application's tests: the Dispatcher service on PostgreSQL and Kafka (the test kit's
 * embedded servers, or the application's own), and waits, without sleeping, until outbox messages are delivered
 * ({@link #awaitDelivered}) or dead-lettered ({@link #awaitDeadLettered}, which returns the cause) and until an inbox
 * consumer handled messages ({@link #awaitHandled}). The waits read what the service made durable, the statuses of
 * {@code outbox_message} and {@code inbox_message}, through a connection of their own, polling every
 * {@value #POLL_MILLIS} ms until a deadline ({@link Builder#timeout}); a message dead-lettered while another
 * outcome is awaited fails the wait at once, with its {@code last_error}.
 *
 * <p>The service runs as users deploy it: dispatcher-app's exec jar ({@code dev.dispatcher:dispatcher-app:exec},
 * which this module brings onto the class path as a file, none of its dependencies with it), started with
 * {@code java -jar} in a JVM of its own on this JVM's JDK, on a fresh schema ({@link Builder#schema}) that its
 * Flyway creates and migrates. So nothing of the service (its {@code application.yml}, Spring Security, WebFlux) is
 * on the application's class path, where Spring Boot would configure the application's own test contexts with it.
 * Its output goes to {@code target/dispatcher-test/<schema>.log} ({@link Builder#logDirectory}).
 *
 * <p>As a JUnit 5 extension on a static field ({@code @RegisterExtension}) it starts before the class's first test
 * and stops after its last; elsewhere call {@link #start()} and {@link #close()}. Starting blocks until the service
 * is ready (its readiness probe answers {@code UP}, so the relay runs), at most {@link Builder#startTimeout}.
 * Thread-safe.
 */
public final class DispatcherTestRelay implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /** How often the waits read the statuses. */
    public static final long POLL_MILLIS = 25;
    /** A system property naming the service's exec jar, instead of the one found on the class path. */
    public static final String SERVICE_JAR_PROPERTY = "dispatcher.test.service-jar";

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Supplier<PostgresServer> postgresSupplier;
    private final Supplier<KafkaServer> kafkaSupplier;
    private final String schema;
    private final List<String> topics;
    private final Map<String, String> properties;
    private final List<String> javaOptions;
    private final Duration timeout;
    private final Duration startTimeout;
    private final Path logDirectory;

    private PostgresServer postgres;
    private KafkaServer kafka;
    private JvmProcess service;
    private int port;
    /** The test class whose {@code beforeAll} started the relay as an extension. */
    private Class<?> owner;

    private DispatcherTestRelay(Builder builder) {
        this.postgresSupplier = builder.postgres;
        this.kafkaSupplier = builder.kafka;
        this.schema = builder.schema;
        this.topics = List.copyOf(builder.topics);
        this.properties = Map.copyOf(builder.properties);
        this.javaOptions = List.copyOf(builder.javaOptions);
        this.timeout = builder.timeout;
        this.startTimeout = builder.startTimeout;
        this.logDirectory = builder.logDirectory;
    }

    /**
     * A relay on the test kit's embedded PostgreSQL and Kafka ({@link TestServers}, shared by every test class of
     * the JVM and started on first use), on a fresh schema; {@link Builder#postgres} and {@link Builder#kafka} choose
     * the application's own servers instead.
     */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Creates the topics, starts the service and waits until it is ready. Does nothing if it runs already.
     *
     * @throws IllegalStateException if the service exits or is not ready within the start timeout (the message has
     *     the end of its output)
     */
    public synchronized DispatcherTestRelay start() {
        if (service != null && service.isAlive()) {
            return this;
        }
        postgres = postgresSupplier.get();
        kafka = kafkaSupplier.get();
        topics.forEach(topic -> kafka.createTopic(topic, 1));
        port = JvmProcess.freePort();
        service = RelayService.start(javaOptions, properties(), port,
                logDirectory.resolve(schema + "-" + INSTANCES.incrementAndGet()), startTimeout);
        return this;
    }

    /** Stops the service gracefully (it drains what it has in flight) and waits for it to exit. */
    @Override
    public synchronized void close() {
        if (service != null) {
            service.stop();
            service = null;
        }
    }

    /** Starts the relay for the class that registered it ({@code @Nested} classes share it). */
    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (owner == null) {
            owner = context.getRequiredTestClass();
        }
        start();
    }

    /** Stops the relay after the class that registered it (not after each of its {@code @Nested} classes). */
    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (context.getRequiredTestClass() == owner) {
            owner = null;
            close();
        }
    }

    /** The service's properties: where its servers and schema are, then the builder's. */
    private Map<String, String> properties() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("server.port", Integer.toString(port));
        all.put("spring.r2dbc.url", postgres.r2dbcUrl());
        all.put("spring.r2dbc.username", postgres.username());
        all.put("spring.r2dbc.password", postgres.password());
        all.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        all.put("dispatcher.schema", schema);
        all.put("dispatcher.worker-id", "test-relay-" + schema);
        all.put("spring.main.banner-mode", "off");
        all.putAll(properties);
        return all;
    }

    // ---------------------------------------------------------------- what tests use

    /** The schema of Dispatcher's tables: give it to the application's writer ({@code dispatcher.schema}). */
    public String schema() {
        return schema;
    }

    /** The database's JDBC URL (the schema is not part of it; {@link #openConnection()} sets it). */
    public String jdbcUrl() {
        return started().postgres.jdbcUrl();
    }

    public String username() {
        return started().postgres.username();
    }

    public String password() {
        return started().postgres.password();
    }

    /** The Kafka cluster's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return started().kafka.bootstrapServers();
    }

    /** The Kafka cluster, to create topics and read what reached them. */
    public KafkaServer kafka() {
        return started().kafka;
    }

    /** Where the service's HTTP API listens: {@code http://localhost:<port>}. */
    public String baseUrl() {
        return "http://localhost:" + started().port;
    }

    /**
     * A new connection to the database, autocommit on, with {@link #schema()} as its {@code search_path}; the caller
     * closes it.
     */
    public Connection openConnection() throws SQLException {
        return started().postgres.openConnection(schema);
    }

    /**
     * Waits until every message of {@code ids} is {@code DELIVERED} (published and acknowledged by Kafka).
     *
     * @throws AssertionError at once if one of them is dead-lettered (naming it and its {@code last_error}), or when
     *     the timeout passes first (with how many are in which status)
     */
    public void awaitDelivered(Collection<UUID> ids) {
        Set<UUID> awaited = new LinkedHashSet<>(ids);
        awaitCounts("delivery of " + awaited.size() + " outbox messages", c -> DurableStatuses.outbox(c, awaited),
                DurableStatuses.DELIVERED, awaited.size());
    }

    /** {@link #awaitDelivered(Collection)}. */
    public void awaitDelivered(UUID... ids) {
        awaitDelivered(Arrays.asList(ids));
    }

    /**
     * Waits until outbox message {@code id} is {@code DEAD_LETTERED}, and returns why ({@code last_error}: the cause
     * its last attempt failed with, or an operator's reason).
     *
     * @throws AssertionError at once if it is delivered instead, or when the timeout passes first
     */
    public String awaitDeadLettered(UUID id) {
        String[] cause = new String[1];
        poll("dead letter of outbox message " + id, c -> {
            DurableStatuses.Status status = DurableStatuses.outboxOne(c, id);
            if (status != null && status.status().equals(DurableStatuses.DELIVERED)) {
                throw new AssertionError("outbox message " + id + " was delivered, not dead-lettered");
            }
            if (status != null && status.status().equals(DurableStatuses.DEAD_LETTERED)) {
                cause[0] = status.lastError();
                return true;
            }
            return false;
        }, () -> "its row: " + describe(id));
        return cause[0];
    }

    /**
     * Waits until inbox consumer {@code consumer} has handled every message of {@code ids} (their rows are {@code
     * COMPLETED}: the handler succeeded, and for an in-process handler its writes committed with it).
     *
     * @throws AssertionError at once if one of them is dead-lettered (naming it and its {@code last_error}), or when
     *     the timeout passes first (with how many are in which status)
     */
    public void awaitHandled(String consumer, Collection<String> ids) {
        Objects.requireNonNull(consumer, "consumer");
        Set<String> awaited = new LinkedHashSet<>(ids);
        awaitCounts("consumer " + consumer + " handling " + awaited.size() + " messages",
                c -> DurableStatuses.inbox(c, consumer, awaited), DurableStatuses.COMPLETED, awaited.size());
    }

    /** {@link #awaitHandled(String, Collection)}. */
    public void awaitHandled(String consumer, String... ids) {
        awaitHandled(consumer, Arrays.asList(ids));
    }

    private interface Read<T> {
        T read(Connection connection) throws SQLException;
    }

    private void awaitCounts(String what, Read<DurableStatuses.Counts> counts, String status, int expected) {
        DurableStatuses.Counts[] last = new DurableStatuses.Counts[1];
        poll(what, c -> {
            DurableStatuses.Counts now = counts.read(c);
            last[0] = now;
            if (!now.deadLetters().isEmpty()) {
                throw new AssertionError(what + ": " + now.of(DurableStatuses.DEAD_LETTERED)
                        + " dead-lettered instead, among them (id=last_error) " + now.deadLetters()
                        + "; statuses " + now);
            }
            return now.of(status) == expected;
        }, () -> "statuses " + last[0]);
    }

    private void poll(String what, Read<Boolean> done, Supplier<String> state) {
        try (Connection c = openConnection()) {
            await(what).atMost(timeout)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(POLL_MILLIS))
                    .until(() -> done.read(c));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; " + state.get()
                    + (service.isAlive() ? "" : "; the relay has exited: " + service.tail(30)), e);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the statuses of " + what, e);
        }
    }

    private String describe(UUID id) {
        try (Connection c = openConnection()) {
            DurableStatuses.Status status = DurableStatuses.outboxOne(c, id);
            return status == null ? "none" : status.toString();
        } catch (SQLException e) {
            return "unreadable (" + e + ")";
        }
    }

    private synchronized DispatcherTestRelay started() {
        if (service == null) {
            throw new IllegalStateException("Dispatcher's relay is not started: register it as a JUnit extension"
                    + " (@RegisterExtension on a static field) or call start()");
        }
        return this;
    }

    @Override
    public String toString() {
        return "DispatcherTestRelay[schema " + schema + (service == null ? ", stopped" : ", " + service) + "]";
    }

    /** How the relay is set up; every setting has a default. */
    public static final class Builder {

        private Supplier<PostgresServer> postgres = TestServers::postgres;
        private Supplier<KafkaServer> kafka = TestServers::kafka;
        private String schema = PostgresServer.uniqueSchemaName("dispatcher_test");
        private final List<String> topics = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final List<String> javaOptions = new ArrayList<>(List.of(
                // a test relay's work is small: a quick start and few threads matter more than peak speed
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"));
        private Duration timeout = Duration.ofSeconds(60);
        private Duration startTimeout = Duration.ofMinutes(3);
        private Path logDirectory = Path.of("target", "dispatcher-test");
        private int consumers;

        private Builder() {
        }

        /** The application's own PostgreSQL instead of the embedded one ({@link PostgresServer#of}). */
        public Builder postgres(PostgresServer server) {
            Objects.requireNonNull(server, "server");
            this.postgres = () -> server;
            return this;
        }

        /** The application's own Kafka instead of the embedded broker ({@link KafkaServer#of}). */
        public Builder kafka(KafkaServer server) {
            Objects.requireNonNull(server, "server");
            this.kafka = () -> server;
            return this;
        }

        /**
         * The schema of Dispatcher's tables (default: a fresh {@code dispatcher_test_<random>}); the service creates
         * and migrates it, or uses it as it is if it is migrated already.
         */
        public Builder schema(String schema) {
            this.schema = Objects.requireNonNull(schema, "schema");
            return this;
        }

        /**
         * Topics to create (one partition each) before the service starts: the embedded broker, like production
         * ones, creates none on first use. An existing topic is left as it is.
         */
        public Builder topics(String... names) {
            topics.addAll(Arrays.asList(names));
            return this;
        }

        /**
         * An inbox consumer {@code name} of {@code topic} whose handler POSTs each message to {@code webhookUrl}
         * (with an {@code Idempotency-Key} equal to the message id); {@link #awaitHandled} waits for it.
         */
        public Builder webhookConsumer(String name, String topic, String webhookUrl) {
            String prefix = "dispatcher.inbox.consumers[" + consumers++ + "].";
            properties.put(prefix + "name", name);
            properties.put(prefix + "topics", topic);
            properties.put(prefix + "webhook.url", webhookUrl);
            return this;
        }

        /**
         * Any property of the service ({@code dispatcher.*}, {@code spring.*}; docs/configuration.md), as on its
         * command line: for example {@code dispatcher.retry.max-attempts} or {@code dispatcher.relay.ordering}.
         */
        public Builder property(String name, Object value) {
            properties.put(Objects.requireNonNull(name, "name"), String.valueOf(value));
            return this;
        }

        /** The JVM options of the service's JVM, replacing the defaults (C1 only, serial GC, 256 MB heap). */
        public Builder javaOptions(String... options) {
            javaOptions.clear();
            javaOptions.addAll(Arrays.asList(options));
            return this;
        }

        /** How long each wait waits at most (default 60 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How long {@link #start()} waits for the service to be ready (default 3 minutes). */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = Objects.requireNonNull(startTimeout, "startTimeout");
            return this;
        }

        /** Where the service's output goes (default {@code target/dispatcher-test}). */
        public Builder logDirectory(Path directory) {
            this.logDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /** The relay, not started yet. */
        public DispatcherTestRelay build() {
            return new DispatcherTestRelay(this);
        }
    }
}
