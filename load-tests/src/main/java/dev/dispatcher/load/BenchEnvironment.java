package dev.dispatcher.load;

import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.PlannerStatistics;
import dev.dispatcher.sql.LeasedTableSql;
import dev.dispatcher.sql.SessionSettings;
import dev.dispatcher.testkit.EmbeddedKafkaServer;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servers a benchmark runs on: a durable embedded PostgreSQL (fsync and synchronous_commit on) and one
 * in-process KRaft broker, co-located with the relay on the same machine. Each phase gets its own schema and topic.
 *
 * <p>{@code -Ddispatcher.bench.pg-durable=false} runs PostgreSQL without fsync, for diagnosis only (how much of a
 * figure the disk's commit latency costs); every RESULT then says {@code "pg_fsync":false}, and such figures are
 * never reported as results.
 */
final class BenchEnvironment implements AutoCloseable {

    final PostgresServer postgres;
    final KafkaServer kafka;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    /** The statistics pass of each open pool, for {@link #release}. */
    private final Map<ConnectionPool, PeriodicPass> refreshers = new ConcurrentHashMap<>();
    /** Schemas this run created, dropped when it ends (on an external server they would outlive it). */
    private final List<String> schemas = new ArrayList<>();
    /**
     * Topics this run created, deleted when it ends: on an external broker they would outlive it (a day of runs left
     * 2,308 topics with 13,813 partitions on the reference machine's broker, each one in its periodic checkpoints).
     */
    private final List<String> topics = new CopyOnWriteArrayList<>();

    /** The embedded servers. */
    BenchEnvironment() {
        this(null, null, null, null);
    }

    /**
     * External servers where given ({@code --pg-url} with {@code --pg-user}/{@code --pg-password}, {@code
     * --bootstrap}; see {@link ExternalServers}), the embedded ones otherwise. An external PostgreSQL runs as its
     * operator configured it; every RESULT reports whether it commits durably.
     */
    BenchEnvironment(String pgUrl, String pgUser, String pgPassword, String bootstrap) {
        postgres = pgUrl != null
                ? ExternalServers.postgres(pgUrl, pgUser, pgPassword)
                : Boolean.parseBoolean(System.getProperty("dispatcher.bench.pg-durable", "true"))
                        ? EmbeddedPostgresServer.durable()
                        : EmbeddedPostgresServer.fast();
        kafka = bootstrap != null ? ExternalServers.kafka(bootstrap) : EmbeddedKafkaServer.start();
    }

    String schema(String prefix) {
        String schema = postgres.createSchema(prefix);
        schemas.add(schema);
        return schema;
    }

    /**
     * A fresh schema name for a service that creates its own schema (Flyway's {@code create-schemas}), dropped with
     * the others at {@link #close()} like every schema a run uses: on an external database nothing is left behind.
     */
    String serviceSchema(String prefix) {
        String schema = PostgresServer.uniqueSchemaName(prefix);
        schemas.add(schema);
        return schema;
    }

    Connection jdbc(String schema) throws SQLException {
        return postgres.openConnection(schema);
    }

    /** {@link #jdbc} that this environment closes when it is closed. */
    Connection jdbcUntilClosed(String schema) throws SQLException {
        Connection c = jdbc(schema);
        closeables.add(c);
        return c;
    }

    /** Whether PostgreSQL really runs durably; reported in every RESULT. */
    boolean fsync() throws SQLException {
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT current_setting('fsync') = 'on' AND current_setting('synchronous_commit') = 'on'")) {
            r.next();
            return r.getBoolean(1);
        }
    }

    ConnectionPool pool(String schema, String appName, int size) {
        PostgresqlConnectionFactory direct = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(postgres.host()).port(postgres.port()).database(postgres.database())
                .username(postgres.username()).password(postgres.password())
                .schema(schema).applicationName(appName)
                // as the service (SessionSettings), unless -Ddispatcher.bench.plan-cache-mode says otherwise
                .options(sessionSettings())
                .forceBinary(true) // as the service: binary results (see DatabaseConfiguration)
                .build());
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(direct)
                .initialSize(size).maxSize(size).build());
        closeables.add(pool::dispose);
        // as the service (PlannerStatisticsLifecycle): statistics kept up with the young tables' size
        PlannerStatistics statistics = new PlannerStatistics(pool);
        PeriodicPass refreshing = new PeriodicPass(() -> statistics.refresh().then(), e -> { });
        refreshing.start(Duration.ZERO, PlannerStatistics.EVERY);
        closeables.add(refreshing::stop); // closed in reverse order: before the pool
        refreshers.put(pool, refreshing);
        return pool;
    }

    /** Creates {@code name} on the broker ({@link KafkaServer#createTopic}) and deletes it when this run ends. */
    void createTopic(String name, int partitions) {
        kafka.createTopic(name, partitions);
        topics.add(name);
    }

    /**
     * Drops a schema of {@link #schema} now instead of when this environment closes: a warm-up round's, so that
     * autovacuum does not work through its delivered rows while a later phase is measured.
     */
    void drop(String schema) throws SQLException {
        postgres.dropSchema(schema);
        schemas.remove(schema);
    }

    /**
     * Closes a pool of {@link #pool} now, with its statistics pass, instead of when this environment closes: for
     * phases that repeat (warm-up rounds), whose pools would otherwise hold their connections until the end.
     */
    void release(ConnectionPool pool) {
        PeriodicPass refreshing = refreshers.remove(pool);
        if (refreshing != null) {
            refreshing.stop();
        }
        pool.dispose();
    }

    /** The service's session settings, with {@code -Ddispatcher.bench.plan-cache-mode} when it is set. */
    private static Map<String, String> sessionSettings() {
        Map<String, String> settings = new HashMap<>(SessionSettings.SERVICE);
        String planCacheMode = System.getProperty("dispatcher.bench.plan-cache-mode");
        if (planCacheMode != null) {
            settings.put("plan_cache_mode", planCacheMode);
        }
        return settings;
    }

    RecordPublisher publisher() {
        Map<String, Object> props = new HashMap<>(Publishers.withDefaults(Map.of()));
        props.put("bootstrap.servers", kafka.bootstrapServers());
        Integer linger = Integer.getInteger("dispatcher.bench.producer-linger-ms"); // the service's default otherwise
        if (linger != null) {
            props.put("linger.ms", linger);
        }
        RecordPublisher publisher = Publishers.kafka(props, Map.of("bootstrap.servers", kafka.bootstrapServers()));
        closeables.add(publisher);
        return publisher;
    }

    /** Seeds {@code n} rows directly ({@link #insertRows}) and returns {@link #ids} of {@code topic}. */
    Set<String> seed(String schema, String topic, BenchOptions o, int n) throws SQLException {
        insertRows(schema, topic, o, n);
        return ids(schema, topic);
    }

    /** The ids of every row of {@code topic} in {@code schema}'s outbox. */
    Set<String> ids(String schema, String topic) throws SQLException {
        return ids(schema, topic, null);
    }

    /** The ids of the rows of {@code topic} in {@code schema}'s outbox but those of {@code keyNot} (null: none). */
    Set<String> ids(String schema, String topic, String keyNot) throws SQLException {
        try (Connection c = jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT id::text FROM outbox_message WHERE topic = ? AND message_key IS DISTINCT FROM ?""")) {
            s.setString(1, topic);
            s.setString(2, keyNot);
            Set<String> ids = new HashSet<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
            return ids;
        }
    }

    /**
     * Inserts {@code n} rows (one multi-row INSERT ... SELECT), analyses the table and checkpoints; for warm-up
     * rounds, which need no ids.
     */
    void insertRows(String schema, String topic, BenchOptions o, int n) throws SQLException {
        insertRows(schema, topic, o.keyExpression(), o.payloadBytes(), n);
    }

    /** {@link #insertRows(String, String, BenchOptions, int)} with the key of row {@code g} as {@code keyExpression}. */
    void insertRows(String schema, String topic, String keyExpression, int payloadBytes, int n) throws SQLException {
        try (Connection c = jdbc(schema); Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT '%s', %s, 'BenchEvent', convert_to(repeat('x', %d), 'UTF8')
                      FROM generate_series(1, %d) g
                    """.formatted(topic, keyExpression, payloadBytes, n));
            s.execute("ANALYZE outbox_message");
            // Every timed phase starts right after its seeding, so each starts from a fresh checkpoint: a timed
            // checkpoint landing in one phase only (full-page images, flush storms) would bias the comparison.
            s.execute("CHECKPOINT");
        }
    }

    /**
     * Inserts the {@code --poison-topic} row: one row, key {@code poison} (a key of its own, so no other row waits
     * behind it), for {@code missingTopic}, a topic nobody creates; returns its id.
     */
    String insertPoison(String schema, String missingTopic) throws SQLException {
        try (Connection c = jdbc(schema); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_message (topic, message_key, event_type, payload)
                VALUES (?, 'poison', 'BenchEvent', convert_to('{}', 'UTF8')) RETURNING id::text""")) {
            s.setString(1, missingTopic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getString(1);
            }
        }
    }

    /** A row's status, attempts and last error, for the harness's output. */
    String describeRow(String schema, String id) throws SQLException {
        try (Connection c = jdbc(schema); PreparedStatement s = c.prepareStatement(
                "SELECT status, attempts, last_error FROM outbox_message WHERE id = ?::uuid")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) + ", attempts " + r.getInt(2) + ", last error: " + r.getString(3)
                        : "absent";
            }
        }
    }

    /**
     * Live rows of the outbox, as the service's own backlog statements select them ({@code OutboxSql.BACKLOG}):
     * {@code seq > 0} matches the predicate of {@code outbox_message_live_seq_idx} (migration V4), so PostgreSQL reads
     * that partial index of live rows. Without it no index fits and every probe read the whole table: 122 ms for
     * an {@code EXISTS} on a 360,000-row outbox (0.8 ms through the index), which the scale mode ran every 50 ms
     * in each instance while it was measured, a PostgreSQL backend per instance busy half the time.
     */
    private static final String LIVE_ROWS =
            "FROM outbox_message WHERE status IN " + LeasedTableSql.LIVE + " AND seq > 0";

    /**
     * Waits until {@code schema}'s outbox has no live row, or {@code timeout} passes; returns whether it emptied.
     * One connection and an {@code EXISTS} probe on the live index ({@link #LIVE_ROWS}): a relay instance polled a
     * {@code count(*)} on a new connection every 50 ms, a backend forked and the backlog scanned 20 times a second
     * per instance, which took CPU from the relays being measured (more of it the more instances ran). For the
     * harness's main threads only.
     */
    boolean awaitNoBacklog(String schema, Duration pollEvery, Duration timeout) throws SQLException,
            InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = jdbc(schema); PreparedStatement exists = c.prepareStatement(
                "SELECT EXISTS (SELECT 1 " + LIVE_ROWS + ")")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet r = exists.executeQuery()) {
                    r.next();
                    if (!r.getBoolean(1)) {
                        return true;
                    }
                }
                Thread.sleep(pollEvery.toMillis()); // a harness main thread: waiting is its job
            }
            return false;
        }
    }

    long backlog(String schema) {
        try (Connection c = jdbc(schema); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) " + LIVE_ROWS)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                // best effort at exit
            }
        }
        for (String schema : schemas) {
            try {
                postgres.dropSchema(schema);
            } catch (Exception e) {
                System.out.println("could not drop schema " + schema + ": " + e.getMessage());
            }
        }
        deleteTopics();
        kafka.close();
        postgres.close();
    }

    private void deleteTopics() {
        try {
            kafka.deleteTopics(topics);
        } catch (RuntimeException e) {
            System.out.println("could not delete topics " + topics + ": " + e.getMessage()); // best effort at exit
        }
    }
}
