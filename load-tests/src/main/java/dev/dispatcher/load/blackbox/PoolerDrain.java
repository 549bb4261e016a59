package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceAccess;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBox;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import dev.dispatcher.testkit.PgBouncer;
import dev.dispatcher.testkit.PostgresServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox --pooler}: after the direct drain, the same drain by a second service jar behind Debian's PgBouncer
 * in transaction pooling mode, as docs/poolers.md sets it up: {@code spring.r2dbc.url} at the pooler as a role whose
 * {@code search_path}, {@code statement_timeout} and {@code lock_timeout} the database gives ({@code ALTER ROLE}),
 * {@code dispatcher.database.pooler=transaction}, Flyway and {@code LISTEN} straight at the server. Warmed up as the
 * direct service was, on the same schema (a topic of its own), seeded while paused; its rate is taken by the rows'
 * own times as the direct one's.
 */
final class PoolerDrain {

    static final String ROLE = "bench_pooled";
    /** PgBouncer's server connections: more than the service's pool (16), so the pooler never queues it. */
    static final int POOL_SIZE = 20;

    private PoolerDrain() {
    }

    record Result(RelayDrain.Pooler figures, long lost, long duplicates) {
    }

    /** A service jar behind its own PgBouncer; closing stops both. */
    record Pooled(PgBouncer pooler, ServiceProcess service) implements AutoCloseable {

        @Override
        public void close() throws Exception {
            try {
                service.close();
            } finally {
                pooler.close();
            }
        }
    }

    /**
     * Gives {@link #ROLE} the settings docs/poolers.md says (the schema's {@code search_path}, the service's
     * timeouts), starts PgBouncer in front of the harness's PostgreSQL and the service jar behind it.
     */
    static Pooled start(BenchEnvironment env, String schema, Ordering ordering,
            List<String> serviceArgs, List<String> jvmOptions, String name) throws Exception {
        PostgresServer postgres = env.postgres();
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            s.execute("DROP ROLE IF EXISTS " + ROLE);
            s.execute("CREATE ROLE " + ROLE + " LOGIN SUPERUSER PASSWORD '" + postgres.password() + "'");
            for (String setting : List.of("search_path = " + schema, "statement_timeout = '30s'",
                    "lock_timeout = '5s'")) {
                s.execute("ALTER ROLE " + ROLE + " IN DATABASE " + postgres.database() + " SET " + setting);
            }
        }
        PgBouncer pooler = PgBouncer.start(postgres, POOL_SIZE, ROLE);
        try {
            ServiceProcess service = ServiceProcess.start(new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                    jvmOptions, arguments(env, pooler, ordering, serviceArgs, schema), ServiceAccess.random(),
                    BenchLog.serviceLog(name));
            System.out.printf(Locale.ROOT, "pooler: %s on port %d in transaction mode; service pid %d, log %s%n",
                    version(), pooler.port(), service.pid(), service.log());
            return new Pooled(pooler, service);
        } catch (Exception | Error e) {
            pooler.close();
            throw e;
        }
    }

    static Result run(BenchEnvironment env, BlackBox b, BlackBoxDrainBenchmark.Topics topics, double directRate,
            List<String> jvmOptions) throws Exception {
        String schema = topics.schema();
        String topic = topics.measured() + "-pooled";
        env.createTopic(topic, 6);
        OutboxRows outbox = new OutboxRows(env);
        int n = b.backlog().n();
        String keys = b.backlog().keys().sqlExpression();
        int payloadBytes = b.backlog().payloadBytes();
        try (Pooled pooled = start(env, schema, b.ordering(), b.serviceArgs(), jvmOptions,
                "blackbox-pooler-service")) {
            PgBouncer pooler = pooled.pooler();
            ServiceClient client = pooled.service().client();
            JitWarmUp.CompilationClock compilation = JitWarmUp.service(client);
            BlackBoxDrainBenchmark.Topics warmTopics = new BlackBoxDrainBenchmark.Topics(schema, topic,
                    topics.warmUp() + "-pooled", topics.poisoned(), topics.fresh());
            BlackBoxDrainBenchmark.warmUp(env, List.of(client), compilation, warmTopics, keys, payloadBytes,
                    b.warmup());
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                long start = System.nanoTime();
                client.pause();
                outbox.insert(schema, topic, keys, payloadBytes, n);
                client.resume();
                boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.since("blackbox pooler",
                        start), client::backlog);
                OutboxRows.Deliveries deliveries = outbox.deliveries(schema, topic);
                System.out.println("blackbox pooler: delivered per second from the first claim: "
                        + deliveries.eachSecond());
                double rate = deliveries.rate();
                System.out.printf(Locale.ROOT, "blackbox pooler: %.0f msgs/s first claim to last delivery (%s UTC)"
                        + " through PgBouncer, %.2f of the direct service's %.0f (%s); pooler errors: %d%n", rate,
                        deliveries.window(), rate / directRate, directRate, all ? "all confirmed"
                                : "NOT all confirmed", pooler.errors().size());
                return new Result(new RelayDrain.Pooler(Round.one(rate), Round.two(rate / directRate), version()),
                        confirmed.lost(outbox.ids(schema, topic)), confirmed.duplicates());
            }
        }
    }

    /** The service's command line behind the pooler: every server setting of its own, none repeated. */
    private static List<String> arguments(BenchEnvironment env, PgBouncer pooler,
            Ordering ordering, List<String> serviceArgs, String schema) {
        PostgresServer postgres = env.postgres();
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.r2dbc.url=" + pooler.r2dbcUrl(),
                "--spring.r2dbc.username=" + ROLE,
                "--spring.r2dbc.password=" + postgres.password(),
                "--spring.flyway.url=" + postgres.jdbcUrl(),
                "--spring.flyway.user=" + postgres.username(),
                "--spring.flyway.password=" + postgres.password(),
                "--spring.kafka.bootstrap-servers=" + env.kafka().bootstrapServers(),
                "--dispatcher.schema=" + schema,
                "--dispatcher.database.pooler=transaction",
                "--dispatcher.database.listen-url=" + postgres.r2dbcUrl(),
                "--dispatcher.relay.ordering=" + ordering.text()));
        arguments.addAll(serviceArgs);
        return arguments;
    }

    /** {@code pgbouncer --version}'s first line. */
    static String version() {
        try {
            Process p = new ProcessBuilder(PgBouncer.BINARY, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out.lines().findFirst().orElse("PgBouncer").strip();
        } catch (IOException e) {
            return "PgBouncer (version unknown: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "PgBouncer";
        }
    }
}
