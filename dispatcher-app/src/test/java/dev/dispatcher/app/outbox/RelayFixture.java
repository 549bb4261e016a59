package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * Builds relays on the shared test servers without Spring, one fresh schema per fixture, and reads durable state
 * through its own JDBC connections. Close it to close the pools and publishers it made.
 */
final class RelayFixture implements AutoCloseable {

    final PostgresServer postgres = TestServers.postgres();
    final KafkaServer kafka;
    final String schema;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    RelayFixture(String prefix) {
        this(prefix, TestServers.kafka());
    }

    RelayFixture(String prefix, KafkaServer kafka) {
        this.kafka = kafka;
        this.schema = postgres.createSchema(prefix);
    }

    /** A pooled connection factory on this schema with {@code application_name = appName}. */
    ConnectionPool pool(String appName) {
        PostgresqlConnectionFactory direct = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(postgres.host()).port(postgres.port()).database(postgres.database())
                .username(postgres.username()).password(postgres.password())
                .schema(schema).applicationName(appName)
                .forceBinary(true) // as the service: binary results (see DatabaseConfiguration)
                .build());
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(direct)
                .initialSize(0).maxSize(8).validationQuery("SELECT 1").build());
        closeables.add(pool::dispose);
        return pool;
    }

    RecordPublisher publisher() {
        return publisher(kafka.bootstrapServers(), Map.of());
    }

    RecordPublisher publisher(String bootstrap, Map<String, Object> overrides) {
        return publisher(Map.of("bootstrap.servers", bootstrap), overrides);
    }

    /**
     * A publisher whose producers and admin client connect with {@code client} (the address, and credentials on a
     * broker that asks for them), as the service's do with Boot's {@code spring.kafka.*}.
     */
    RecordPublisher publisher(Map<String, Object> client, Map<String, Object> overrides) {
        Map<String, Object> props = new HashMap<>(Publishers.withDefaults(Map.of()));
        props.putAll(client);
        props.putAll(overrides);
        RecordPublisher publisher = Publishers.kafka(props, client);
        closeables.add(publisher);
        return publisher;
    }

    static RelaySettings settings(String workerId, Ordering ordering) {
        return new RelaySettings(workerId, 100, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(200), ordering,
                RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.FULL, 5,
                        new SplittableRandom(42)),
                Duration.ofSeconds(20));
    }

    /** A started relay with its own pool (application_name = workerId) and metrics registry. */
    Relay relay(RelaySettings settings, RecordPublisher publisher, DispatcherMetrics metrics) {
        ConnectionPool pool = pool(settings.loop().workerId());
        Relay relay = new Relay(OutboxStore.r2dbc(pool), publisher, settings,
                RelayBreaker.create(settings.loop().workerId()), metrics, () -> false);
        OutboxListener listener = new OutboxListener(pool, schema, relay::wake, Duration.ofSeconds(2));
        closeables.add(listener::stop);
        listener.start();
        relay.start();
        closeables.add(() -> relay.stop().block(Duration.ofSeconds(30)));
        return relay;
    }

    static DispatcherMetrics metrics() {
        return new DispatcherMetrics(new SimpleMeterRegistry());
    }

    Connection jdbc() throws SQLException {
        return postgres.openConnection(schema);
    }

    /** Inserts {@code n} rows on {@code topic}; {@code key} gives each row's key (null for none). Returns ids. */
    List<UUID> seed(String topic, int n, IntFunction<String> key) throws SQLException {
        List<UUID> ids = new ArrayList<>(n);
        try (Connection c = jdbc(); PreparedStatement insert = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload, headers, correlation_id,
                                            causation_id)
                VALUES (?, ?, ?, 'TestEvent', ?, '{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tenant": "t1"}', ?, ?)
                """)) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                insert.setObject(1, id);
                insert.setString(2, topic);
                insert.setString(3, key.apply(i));
                insert.setBytes(4, ("{\"n\":" + i + "}").getBytes());
                insert.setString(5, "corr-" + i);
                insert.setString(6, "cause-" + i);
                insert.addBatch();
            }
            insert.executeBatch();
            c.commit();
        }
        return ids;
    }

    /** Status counts of the whole outbox. */
    Map<String, Long> statusCounts() throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT status, count(*) FROM outbox_message GROUP BY status ORDER BY status")) {
            while (rows.next()) {
                counts.put(rows.getString(1), rows.getLong(2));
            }
        }
        return counts;
    }

    /** The most common last errors, for failure messages. */
    Map<String, Long> lastErrors() throws SQLException {
        Map<String, Long> errors = new LinkedHashMap<>();
        try (Connection c = jdbc(); ResultSet rows = c.createStatement().executeQuery("""
                SELECT left(last_error, 300), count(*) FROM outbox_message WHERE last_error IS NOT NULL
                 GROUP BY 1 ORDER BY 2 DESC LIMIT 5""")) {
            while (rows.next()) {
                errors.put(rows.getString(1), rows.getLong(2));
            }
        }
        return errors;
    }

    long count(String where) throws SQLException {
        try (Connection c = jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT count(*) FROM outbox_message WHERE " + where)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Waits until {@code where} matches {@code expected} rows, or fails after {@code timeout}. */
    void awaitCount(String where, long expected, Duration timeout) {
        await("%d rows where %s".formatted(expected, where)).atMost(timeout).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    long seen = count(where);
                    if (seen != expected) { // the state around it, told only when it is not yet as expected
                        assertThat(seen).as("rows where %s; statuses %s; errors %s", where, statusCounts(),
                                lastErrors()).isEqualTo(expected);
                    }
                });
    }

    @Override
    public void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                // best effort
            }
        }
    }
}
