package dev.dispatcher.load.bench;

import dev.dispatcher.load.mode.Servers;
import dev.dispatcher.testkit.EmbeddedKafkaServer;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The servers a benchmark runs on: a durable embedded PostgreSQL (fsync and synchronous_commit on) and one
 * in-process KRaft broker, co-located with the service on the same machine, or external ones ({@link Servers}).
 * Each phase gets its own schema and topic; closing drops every schema and deletes every topic the run created (on
 * external servers they would outlive it: a day of runs once left 2,308 topics on an external broker).
 *
 * <p>{@code -Ddispatcher.bench.pg-durable=false} runs the embedded PostgreSQL without fsync, for diagnosis only;
 * every RESULT then says {@code "pg_fsync":false}, and such figures are never reported as results.
 */
public final class BenchEnvironment implements AutoCloseable {

    private final PostgresServer postgres;
    private final KafkaServer kafka;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> schemas = new CopyOnWriteArrayList<>();
    private final List<String> topics = new CopyOnWriteArrayList<>();

    /** The embedded servers. */
    public BenchEnvironment() {
        this(Servers.EMBEDDED);
    }

    /** {@link #BenchEnvironment(Servers)} with a progress line every few seconds while the servers start. */
    public static BenchEnvironment start(Servers servers) throws Exception {
        return start(servers, false);
    }

    /**
     * {@link #start(Servers)}; with {@code brokerCreatesTopics}, the in-process broker creates topics on first use
     * ({@code auto.create.topics.enable=true}, Kafka's default; an external one is as its operator configured it).
     */
    public static BenchEnvironment start(Servers servers, boolean brokerCreatesTopics) throws Exception {
        return Progress.during("servers", "starting PostgreSQL and Kafka", "PostgreSQL and Kafka ready",
                () -> new BenchEnvironment(servers, brokerCreatesTopics));
    }

    /** The servers {@code servers} names; an external PostgreSQL runs as its operator configured it. */
    public BenchEnvironment(Servers servers) {
        this(servers, false);
    }

    private BenchEnvironment(Servers servers, boolean brokerCreatesTopics) {
        postgres = servers.pgUrl() != null
                ? ExternalServers.postgres(servers.pgUrl(), servers.pgUser(), servers.pgPassword())
                : Boolean.parseBoolean(System.getProperty("dispatcher.bench.pg-durable", "true"))
                        ? EmbeddedPostgresServer.durable()
                        : EmbeddedPostgresServer.fast();
        kafka = servers.bootstrap() != null ? ExternalServers.kafka(servers.bootstrap())
                : embeddedKafka(brokerCreatesTopics);
    }

    /**
     * A further environment on {@code postgres} beside a run's first one, sharing its broker ({@code kafka}, not
     * closed by this one): a second source's database. Closing it drops its schemas and closes {@code postgres}.
     */
    public BenchEnvironment(PostgresServer postgres, KafkaServer kafka) {
        this.postgres = postgres;
        this.kafka = kafka;
    }

    /**
     * The in-process broker. Formatting its storage prints to standard output; that goes to the log with the
     * broker's other output, not to the run's console (the harness's main thread is the only one printing now).
     */
    private static KafkaServer embeddedKafka(boolean creatingTopics) {
        PrintStream console = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            return creatingTopics ? EmbeddedKafkaServer.startCreatingTopics() : EmbeddedKafkaServer.start();
        } finally {
            System.setOut(console);
            LoggerFactory.getLogger(BenchEnvironment.class).info("the broker printed while starting: {}",
                    printed.toString(StandardCharsets.UTF_8).strip());
        }
    }

    public PostgresServer postgres() {
        return postgres;
    }

    public KafkaServer kafka() {
        return kafka;
    }

    /** A new schema with Dispatcher's tables migrated into it (for the harness's own statements). */
    public String schema(String prefix) {
        String schema = postgres.createSchema(prefix);
        schemas.add(schema);
        return schema;
    }

    /**
     * A fresh schema name for a service, which creates and migrates its schema itself (Flyway's {@code
     * create-schemas}); dropped with the others when the run ends.
     */
    public String serviceSchema(String prefix) {
        String schema = PostgresServer.uniqueSchemaName(prefix);
        schemas.add(schema);
        return schema;
    }

    public Connection jdbc(String schema) throws SQLException {
        return postgres.openConnection(schema);
    }

    /** {@link #jdbc} that this environment closes when it is closed. */
    public Connection jdbcUntilClosed(String schema) throws SQLException {
        Connection c = jdbc(schema);
        closeables.add(c);
        return c;
    }

    /** Whether PostgreSQL really runs durably; reported in every RESULT. */
    public boolean fsync() throws SQLException {
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(
                     "SELECT current_setting('fsync') = 'on' AND current_setting('synchronous_commit') = 'on'")) {
            r.next();
            return r.getBoolean(1);
        }
    }

    /** Creates {@code name} on the broker and deletes it when this run ends. */
    public void createTopic(String name, int partitions) {
        kafka.createTopic(name, partitions);
        topics.add(name);
    }

    /** Deletes {@code name}, which something else creates (a broker on first use), when this run ends. */
    public void deleteAtEnd(String name) {
        topics.add(name);
    }

    /**
     * Drops a schema now instead of when this environment closes: a warm-up's, so that autovacuum does not work
     * through its delivered rows while a later phase is measured.
     */
    public void drop(String schema) throws SQLException {
        postgres.dropSchema(schema);
        schemas.remove(schema);
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
        try {
            kafka.deleteTopics(topics);
        } catch (RuntimeException e) {
            System.out.println("could not delete topics " + topics + ": " + e.getMessage()); // best effort at exit
        }
        kafka.close();
        postgres.close();
    }
}
