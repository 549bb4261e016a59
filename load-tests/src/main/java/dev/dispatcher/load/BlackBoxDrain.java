package dev.dispatcher.load;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code blackbox}: the relay as users deploy it, the service jar started with {@code java -jar} ({@link
 * ServiceProcess}, default settings but {@code --ordering}) on the harness's PostgreSQL and Kafka (embedded, or
 * external with {@code --pg-url} and {@code --bootstrap}). It first drains {@code --warmup} rows to a topic of their
 * own, then N rows inserted by one {@code INSERT ... SELECT} while the relay is paused (resumed once the seed is
 * analysed and checkpointed, as the other drains start after their seeding). {@code msgs_per_s} counts from the
 * first claim to the last delivery by the rows' own timestamps ({@code last_attempt_at}, {@code delivered_at}); {@code
 * end_to_end_msgs_per_s} from before the insert until the harness's consumer has seen all N ids, seeding included.
 * The reference ceiling runs on the same database before the service starts and after it stopped, and the higher
 * run counts ({@link PgCeiling.Bracket}). With {@code --poison-topic} the same service then drains N rows again, to a
 * topic of their own, with one row for a topic that does not exist inserted first among them, and reports that rate
 * ({@code poison_msgs_per_s}, by the rows' own times) beside the clean one ({@code ratio_to_clean}). RESULT {@code
 * relay-drain}.
 */
final class BlackBoxDrain {

    private BlackBoxDrain() {
    }

    static String run(BenchEnvironment env, BenchOptions options) throws Exception {
        BenchOptions o = options;
        Topics topics = Topics.create(env);
        String schema = topics.schema();
        String topic = topics.measured();
        String warmTopic = topics.warmUp();
        double byRows;
        double endToEnd;
        long lost;
        long duplicates;
        double compiling;
        Map<String, Object> poison = new LinkedHashMap<>();
        double ceilingBefore = PgCeiling.measure(env, env.schema("ceiling"), o.n());
        try (ServiceProcess service = startService(env, o, schema)) {
            JitWarmUp.CompilationClock compilation = JitWarmUp.service(service);
            if (o.warmup() > 0) {
                o = o.withWarmup((int) warmUp(env, o, compilation, schema, warmTopic));
                System.out.printf(Locale.ROOT, "warm-up: %d messages delivered (not reported)%n", o.warmup());
            }
            try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                long start = System.nanoTime();
                // Seeded, analysed and checkpointed before the relay may claim, as the in-process drain, the scale
                // mode and the reference ceiling are: with the relay running, its first seconds (and the rate
                // measured from its first claim) shared the machine with the seed's ANALYZE and CHECKPOINT.
                setPaused(env, schema, true);
                env.insertRows(schema, topic, o, o.n());
                JitWarmUp.Phase measured = JitWarmUp.Phase.start(compilation);
                setPaused(env, schema, false);
                boolean all = confirmed.awaitDistinct(o.n(), Duration.ofMinutes(10), () -> { });
                endToEnd = o.n() / ((System.nanoTime() - start) / 1e9);
                compiling = measured.compilingShare();
                Deliveries deliveries = deliveries(env, schema, topic);
                byRows = deliveries.rate();
                System.out.println("blackbox: delivered per second from the first claim: " + deliveries.eachSecond());
                lost = confirmed.lost(env.ids(schema, topic));
                duplicates = confirmed.duplicates();
                System.out.printf(Locale.ROOT, "blackbox: %.0f msgs/s first claim to last delivery (%s UTC, by the"
                        + " database's clock), %.0f end to end (%s)%n", byRows, deliveries.window(), endToEnd,
                        all ? "all confirmed" : "NOT all confirmed");
            }
            if (o.poisonTopic()) {
                PoisonedDrain poisoned = poisoned(env, o, schema, topics.poisoned());
                poison.put("poison_msgs_per_s", RelayBenchmark.round(poisoned.rate()));
                poison.put("ratio_to_clean", RelayBenchmark.round2(poisoned.rate() / byRows));
                lost += poisoned.lost();
                duplicates += poisoned.duplicates();
            }
        }
        PgCeiling.Bracket ceiling = new PgCeiling.Bracket(ceilingBefore,
                PgCeiling.measure(env, env.schema("ceiling"), o.n()));
        Map<String, Object> r = RelayBenchmark.common(env, o, "relay-drain");
        r.put("n", o.n());
        r.put("instances", 1);
        r.put("msgs_per_s", RelayBenchmark.round(byRows));
        r.put("end_to_end_msgs_per_s", RelayBenchmark.round(endToEnd));
        r.put("baseline_msgs_per_s", 0);
        r.put("pg_ceiling_msgs_per_s", RelayBenchmark.round(ceiling.higher()));
        r.put("pg_ceiling_runs", ceiling.runs());
        r.put("ratio_to_ceiling", RelayBenchmark.round2(byRows / ceiling.higher()));
        r.put("service_compiling_share", RelayBenchmark.round2(compiling));
        r.put("lost", lost);
        r.put("duplicates", duplicates);
        r.putAll(poison);
        return RelayBenchmark.json(r);
    }

    /** The {@code --poison-topic} drain's rate (by the rows' own times) and its lost and duplicate rows. */
    record PoisonedDrain(double rate, long lost, long duplicates) {
    }

    /**
     * The measured drain again, on the running service, to a topic of its own ({@code topic}, created), with one row
     * for a topic nobody creates inserted first: seeded while the relay is paused, as the clean drain, after a vacuum
     * of the clean drain's delivered rows, so it starts on a table in the state the clean drain started on (without
     * it, autovacuum worked through those rows while the poisoned drain was measured).
     */
    static PoisonedDrain poisoned(BenchEnvironment env, BenchOptions o, String schema, String topic)
            throws Exception {
        env.createTopic(topic, 6);
        vacuum(env, schema);
        try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            setPaused(env, schema, true);
            String poison = env.insertPoison(schema, topic + "-missing");
            env.insertRows(schema, topic, o, o.n());
            setPaused(env, schema, false);
            boolean all = confirmed.awaitDistinct(o.n(), Duration.ofMinutes(10), () -> { });
            Deliveries deliveries = deliveries(env, schema, topic);
            System.out.println("blackbox poison-topic: delivered per second from the first claim: "
                    + deliveries.eachSecond());
            System.out.printf(Locale.ROOT, "blackbox poison-topic: %.0f msgs/s first claim to last delivery (%s UTC),"
                    + " with a missing topic's row first among them (%s); that row: %s%n", deliveries.rate(),
                    deliveries.window(), all ? "all confirmed" : "NOT all confirmed", env.describeRow(schema, poison));
            return new PoisonedDrain(deliveries.rate(), confirmed.lost(env.ids(schema, topic)),
                    confirmed.duplicates());
        }
    }

    /**
     * A blackbox run's service schema, its measured topic (6 partitions, created), its warm-up topics' prefix and
     * the {@code --poison-topic} drain's topic (created when that drain runs).
     */
    record Topics(String schema, String measured, String warmUp, String poisoned) {

        static Topics create(BenchEnvironment env) {
            String schema = env.serviceSchema("blackbox");
            Topics topics = new Topics(schema, "bench-" + schema, "bench-" + schema + "-warm",
                    "bench-" + schema + "-poisoned");
            env.createTopic(topics.measured, 6); // the warm-up rounds create theirs (warmUp)
            return topics;
        }
    }

    /**
     * The service jar on {@code schema}, with the JVM options of {@code -Ddispatcher.bench.service-jvm-options}
     * (none by default), logging to {@code target/blackbox-service.log}.
     */
    static ServiceProcess startService(BenchEnvironment env, BenchOptions o, String schema) throws Exception {
        return startService(env, o, schema, Path.of("target", "blackbox-service.log"));
    }

    /** {@link #startService(BenchEnvironment, BenchOptions, String)}, logging to {@code log}. */
    static ServiceProcess startService(BenchEnvironment env, BenchOptions o, String schema, Path log)
            throws Exception {
        String jvmOptions = System.getProperty("dispatcher.bench.service-jvm-options", "").strip();
        ServiceProcess service = ServiceProcess.start(ServiceProcess.defaultJar(),
                jvmOptions.isEmpty() ? List.of() : List.of(jvmOptions.split("\\s+")),
                serviceArguments(env, o, schema), log);
        System.out.printf(Locale.ROOT, "service: java -jar %s, pid %d, %s%n", jvmOptions, service.pid(),
                service.baseUrl);
        return service;
    }

    /**
     * Seeds {@code --warmup} rows and waits until the service delivered them, in rounds until the service has nearly
     * stopped compiling ({@link JitWarmUp}); returns the rows drained. Each round publishes to a topic of its own
     * ({@code warmTopic-1}, {@code -2}, ...), as the measured phase does to its new topic: with one warm-up topic,
     * the producer's path for a topic it has no metadata for ran first in the measured drain, whose first seconds
     * then de-optimised and recompiled some 280 methods (the service's {@code -Xlog:jit+compilation}).
     */
    static long warmUp(BenchEnvironment env, BenchOptions o, JitWarmUp.CompilationClock compilation, String schema,
            String warmTopic) throws Exception {
        AtomicInteger round = new AtomicInteger();
        // each round in the measured phase's shape: the relay paused while the backlog is seeded, then resumed
        // into it (seeded while it ran, it chased the insert and never drained a standing backlog before the
        // measured phase, whose first seconds then compiled again: the service's compiler took a third of its CPU
        // samples in the measured drain)
        long drained = JitWarmUp.untilCompiled("drain", compilation, () -> {
            String topic = warmTopic + "-" + round.incrementAndGet();
            env.createTopic(topic, 6);
            setPaused(env, schema, true);
            env.insertRows(schema, topic, o, o.warmup());
        }, () -> {
            setPaused(env, schema, false);
            env.awaitNoBacklog(schema, Duration.ofMillis(100), Duration.ofMinutes(10));
            return o.warmup();
        }, JitWarmUp.MAX_ROUNDS);
        vacuum(env, schema);
        return drained;
    }

    /**
     * Vacuums the outbox once after the warm-up, as autovacuum does for a service in steady operation: the warm-up
     * delivers a few hundred thousand rows within seconds, and until a vacuum removes their entries from the live
     * partial indexes every per-key claim steps over them (measured on PostgreSQL 15: 4.2 ms instead of 1.7 for a
     * 128-row claim over 265,000 such entries, 231 ms for the first claim that meets them). A service's own traffic
     * leaves such entries too, and its measured phase does.
     */
    static void vacuum(BenchEnvironment env, String schema) throws Exception {
        long start = System.nanoTime();
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("VACUUM (ANALYZE) outbox_message");
        }
        System.out.printf(Locale.ROOT, "VACUUM (ANALYZE) outbox_message in %.1f s%n",
                (System.nanoTime() - start) / 1e9);
    }

    /** The service's command line: the harness's servers and schema, the run's ordering, then {@code --service-args}. */
    private static List<String> serviceArguments(BenchEnvironment env, BenchOptions o, String schema) {
        List<String> arguments = new ArrayList<>(ServiceProcess.serverArguments(env.postgres, env.kafka, schema));
        arguments.addAll(List.of(
                "--dispatcher.relay.ordering=" + o.orderingName(),
                // the warm-up reads the service's compilation time there (JitWarmUp)
                "--dispatcher.security.public-prometheus=true",
                // ingest is not used; a token keeps the security configuration complete
                "--dispatcher.security.tokens[0].name=bench",
                "--dispatcher.security.tokens[0].sha256=" + "0".repeat(64),
                "--dispatcher.security.tokens[0].roles=PRODUCER"));
        arguments.addAll(o.serviceArgs());
        return arguments;
    }

    /**
     * Sets the service's cluster-wide pause switch ({@code dispatcher_control}, as {@code POST /v1/relay/pause} does)
     * and, when pausing, waits until the relay has certainly read it: the switch is re-read every poll interval, and
     * a claim already running finishes (the warm-up drained, so there is none).
     */
    static void setPaused(BenchEnvironment env, String schema, boolean paused) throws Exception {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement(
                "UPDATE dispatcher_control SET enabled = ?, updated_by = 'benchmark' WHERE name = 'relay_paused'")) {
            s.setBoolean(1, paused);
            if (s.executeUpdate() != 1) {
                throw new IllegalStateException("no relay_paused switch in " + schema);
            }
        }
        if (paused) {
            Thread.sleep(PAUSE_TAKES_EFFECT.toMillis()); // the harness's main thread: waiting is its job
        }
    }

    /** Twice the service's default poll interval ({@code dispatcher.relay.poll-interval}, 1 s). */
    private static final Duration PAUSE_TAKES_EFFECT = Duration.ofSeconds(2);

    /**
     * The measured topic's deliveries by the rows' own times: {@code rate}, delivered rows a second from the first
     * claim to the last delivery; {@code eachSecond}, the rows delivered in each second after the first claim, for
     * telling a slow start or tail from a slow steady state; {@code window}, that span in UTC wall-clock time, to
     * match against {@code pidstat} or PostgreSQL's log.
     */
    record Deliveries(double rate, String eachSecond, String window) {
    }

    static Deliveries deliveries(BenchEnvironment env, String schema, String topic) throws Exception {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                WITH d AS (SELECT delivered_at, last_attempt_at FROM outbox_message
                            WHERE topic = ? AND status = 'DELIVERED'),
                     f AS (SELECT count(*) AS n, min(last_attempt_at) AS first_claim, max(delivered_at) AS last_delivery
                             FROM d)
                SELECT f.n / greatest(extract(epoch FROM f.last_delivery - f.first_claim), 0.001),
                       (SELECT string_agg(n::text, ' ' ORDER BY second)
                          FROM (SELECT floor(extract(epoch FROM d.delivered_at - f.first_claim))::int AS second,
                                       count(*) AS n
                                  FROM d GROUP BY 1) per_second),
                       to_char(f.first_claim AT TIME ZONE 'UTC', 'HH24:MI:SS.MS') || ' to '
                           || to_char(f.last_delivery AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
                  FROM f
                """)) {
            s.setString(1, topic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new Deliveries(r.getDouble(1), r.getString(2), r.getString(3));
            }
        }
    }
}
