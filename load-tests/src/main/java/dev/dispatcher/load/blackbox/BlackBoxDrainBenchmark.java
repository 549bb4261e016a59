package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.bench.ServiceWarmUp;
import dev.dispatcher.load.mode.BlackBox;
import dev.dispatcher.load.reference.PgCeiling;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox}: the relay as users deploy it, the service jar started with {@code java -jar} (its defaults but
 * {@code --ordering} and {@code --service-args}) on the harness's PostgreSQL and Kafka. It first drains {@code
 * --warmup} rows in rounds to topics of their own ({@link ServiceWarmUp}) and vacuums, then N rows inserted by one
 * {@code INSERT ... SELECT} while the relay is paused (its switch, over HTTP), resumed once the seed is analysed and
 * checkpointed. {@code msgs_per_s} counts from the first claim to the last delivery by the rows' own timestamps;
 * {@code end_to_end_msgs_per_s} from before the pause until the harness's consumer has seen all N ids. The reference
 * ceiling runs before the service starts and after it stopped, the higher counting. With {@code --poison-topic} the
 * same service then drains N rows again, to a topic of their own, with one row for a topic that does not exist first
 * among them ({@code poison_msgs_per_s}, {@code ratio_to_clean}). Before all that, with {@code --fresh-n} above 0,
 * the service's JVM is launched on a standing backlog of that many rows ({@link FreshStartDrain}): {@code
 * time_to_80pct_s}, {@code startup_s}, {@code fresh_msgs_per_s} and {@code fresh_steady_msgs_per_s} say how fast a
 * new instance is from its first second. With {@code --pooler}, a second service jar behind PgBouncer in transaction
 * pooling mode drains N rows as well ({@link PoolerDrain}): {@code pooler_msgs_per_s}, {@code
 * pooler_ratio_to_direct}. With {@code --compare-ordering}, before the service stops, a second service jar under
 * {@code per-key-across-topics} and this one drain N rows each in {@code --pairs} pairs, in turns ({@link
 * OrderingComparison}): {@code across_topics_msgs_per_s}, {@code ratio_to_across_topics} and each pair's figures.
 * RESULT {@code relay-drain}.
 */
public final class BlackBoxDrainBenchmark {

    private BlackBoxDrainBenchmark() {
    }

    /**
     * A run's service schema, its measured topic (6 partitions, created), its warm-up topics' prefix, the {@code
     * --poison-topic} drain's topic and the fresh start's (each created when its drain runs).
     */
    record Topics(String schema, String measured, String warmUp, String poisoned, String fresh) {

        /** The service creates and migrates the schema when it starts. */
        static Topics create(BenchEnvironment env, String prefix) {
            return create(env, prefix, false);
        }

        /** {@code migrated}: the schema is created and migrated now (a backlog waits before the launch). */
        static Topics create(BenchEnvironment env, String prefix, boolean migrated) {
            String schema = migrated ? env.schema(prefix) : env.serviceSchema(prefix);
            Topics topics = new Topics(schema, "bench-" + schema, "bench-" + schema + "-warm",
                    "bench-" + schema + "-poisoned", "bench-" + schema + "-fresh");
            env.createTopic(topics.measured, 6);
            return topics;
        }
    }

    public static RelayDrain run(BenchEnvironment env, BlackBox b) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        Topics topics = Topics.create(env, "blackbox", b.freshN() > 0);
        String schema = topics.schema();
        int n = b.backlog().n();
        String keys = b.backlog().keys().sqlExpression();
        int payloadBytes = b.backlog().payloadBytes();
        double ceilingBefore = PgCeiling.measure(env, env.schema("ceiling"), n);
        JitWarmUp.Result warm;
        double byRows;
        double endToEnd;
        double compiling;
        long lost;
        long duplicates;
        RelayDrain.Isolation poison = RelayDrain.Isolation.NONE;
        FreshStartDrain.Result fresh = FreshStartDrain.Result.NONE;
        OrderingComparison.Result compared = null;
        List<String> jvmOptions = Services.jvmOptions("");
        try (FreshStartDrain freshDrain = b.freshN() == 0 ? null
                : FreshStartDrain.seed(env, schema, topics.fresh(), keys, payloadBytes, b.freshN());
             ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                     jvmOptions, schema, ServiceArguments.relay(b.ordering(), b.serviceArgs()), "blackbox-service")) {
            if (freshDrain != null) {
                fresh = freshDrain.await(service, jvmOptions);
            }
            ServiceClient client = service.client();
            JitWarmUp.CompilationClock compilation = JitWarmUp.service(client);
            warm = warmUp(env, List.of(client), compilation, topics, keys, payloadBytes, b.warmup());
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topics.measured(), 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                long start = System.nanoTime();
                // seeded, analysed and checkpointed before the relay may claim, as the other drains are
                client.pause();
                outbox.insert(schema, topics.measured(), keys, payloadBytes, n);
                JitWarmUp.Phase measured = JitWarmUp.Phase.start(compilation);
                client.resume();
                boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.since("blackbox", start),
                        client::backlog);
                endToEnd = n / ((System.nanoTime() - start) / 1e9);
                compiling = measured.compilingShare();
                OutboxRows.Deliveries deliveries = outbox.deliveries(schema, topics.measured());
                byRows = deliveries.rate();
                System.out.println("blackbox: delivered per second from the first claim: " + deliveries.eachSecond());
                lost = confirmed.lost(outbox.ids(schema, topics.measured()));
                duplicates = confirmed.duplicates();
                System.out.printf(Locale.ROOT, "blackbox: %.0f msgs/s first claim to last delivery (%s UTC, by the"
                        + " database's clock), %.0f end to end (%s)%n", byRows, deliveries.window(), endToEnd,
                        all ? "all confirmed" : "NOT all confirmed");
            }
            if (b.poisonTopic()) {
                PoisonedDrain poisoned = poisoned(env, client, b, schema, topics.poisoned());
                poison = new RelayDrain.Isolation(Round.one(poisoned.rate()), Round.two(poisoned.rate() / byRows), null,
                        null, null);
                lost += poisoned.lost();
                duplicates += poisoned.duplicates();
            }
            if (b.compareOrdering()) {
                compared = OrderingComparison.run(env, b, client, schema, jvmOptions);
            }
        }
        PoolerDrain.Result pooled = b.pooler() ? PoolerDrain.run(env, b, topics, byRows, jvmOptions) : null;
        PgCeiling.Bracket ceiling = new PgCeiling.Bracket(ceilingBefore,
                PgCeiling.measure(env, env.schema("ceiling"), n));
        RelayDrain result = RelayDrain.serviceJar(Common.of(env.fsync(), b.ordering().text(), b.backlog().keys().text(),
                        payloadBytes, warm.rows(), warm.rounds()), n, Round.one(byRows), Round.one(endToEnd),
                Round.one(ceiling.higher()), ceiling.runs(), Round.two(byRows / ceiling.higher()), Round.two(compiling),
                lost + fresh.lost(), duplicates + fresh.duplicates(), poison, fresh.figures());
        result = compared == null ? result
                : result.withOrderings(compared.figures(), compared.lost(), compared.duplicates());
        return pooled == null ? result : result.withPooler(pooled.figures(), pooled.lost(), pooled.duplicates());
    }

    /**
     * {@code rows} rows a round until the services' compiler settles ({@link ServiceWarmUp}), then a vacuum: the
     * warm-up delivers hundreds of thousands of rows within seconds, and until a vacuum removes their entries from
     * the live partial indexes every per-key claim steps over them (autovacuum does so for a service in steady
     * operation). None when {@code rows} is 0.
     */
    static JitWarmUp.Result warmUp(BenchEnvironment env, List<ServiceClient> services,
            JitWarmUp.CompilationClock compilation, Topics topics, String keys, int payloadBytes, int rows)
            throws Exception {
        if (rows == 0) {
            return JitWarmUp.Result.NONE;
        }
        JitWarmUp.Result warm = ServiceWarmUp.rounds(env, services, compilation, topics.schema(), topics.warmUp(),
                keys, payloadBytes, rows);
        new OutboxRows(env).vacuum(topics.schema());
        System.out.printf(Locale.ROOT, "warm-up: %d messages in %d round(s) of %d delivered (not reported)%n",
                warm.rows(), warm.rounds(), rows);
        return warm;
    }

    /** The {@code --poison-topic} drain's rate (by the rows' own times) and its lost and duplicate rows. */
    record PoisonedDrain(double rate, long lost, long duplicates) {
    }

    /**
     * The measured drain again, on the running service, to a topic of its own ({@code topic}, created), with one row
     * for a topic nobody creates inserted first, on the key of the drain's first row (so that key's rows in the
     * measured topic share it: under {@code per-key} they do not wait for it, issue 49): seeded while the relay is
     * paused, as the clean drain, after a vacuum of the clean drain's delivered rows, so it starts on a table in the
     * state the clean drain started on (without it, autovacuum worked through those rows while the poisoned drain was
     * measured).
     */
    private static PoisonedDrain poisoned(BenchEnvironment env, ServiceClient client, BlackBox b, String schema,
            String topic) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        env.createTopic(topic, 6);
        outbox.vacuum(schema);
        int n = b.backlog().n();
        try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            client.pause();
            String poison = outbox.insertPoison(schema, topic + "-missing", b.backlog().keys().sqlExpression());
            outbox.insert(schema, topic, b.backlog().keys().sqlExpression(), b.backlog().payloadBytes(), n);
            client.resume();
            boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.of("blackbox poison-topic"),
                    client::backlog);
            OutboxRows.Deliveries deliveries = outbox.deliveries(schema, topic);
            System.out.println("blackbox poison-topic: delivered per second from the first claim: "
                    + deliveries.eachSecond());
            System.out.printf(Locale.ROOT, "blackbox poison-topic: %.0f msgs/s first claim to last delivery (%s UTC),"
                    + " with a missing topic's row first among them (%s); that row: %s%n", deliveries.rate(),
                    deliveries.window(), all ? "all confirmed" : "NOT all confirmed", outbox.describe(schema, poison));
            return new PoisonedDrain(deliveries.rate(), confirmed.lost(outbox.ids(schema, topic)),
                    confirmed.duplicates());
        }
    }
}
