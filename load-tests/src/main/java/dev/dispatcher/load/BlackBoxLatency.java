package dev.dispatcher.load;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * {@code blackbox-latency}: the latency mode against the relay as users deploy it, the service jar started with {@code
 * java -jar} ({@link ServiceProcess}, default settings but {@code --ordering}) on the harness's PostgreSQL and Kafka.
 * The service first drains {@code --warmup} rows to topics of their own, then gets rounds of 10 s of the measured load,
 * untimed, to the measured topic, until it has nearly stopped compiling (so the first measured records do not wait for
 * the producer to fetch a new topic's metadata, a one-time cost of 100-200 ms); both in the same table, as a running
 * service's table has history. Then writer threads offer {@code --rate} one-row durable transactions a second for
 * {@code --duration-s}, and the consumer measures commit to arrival on Kafka of those rows only (the row-times line
 * covers the topic with its warm-up trickle). The service's JVM options as for {@link BlackBoxDrain#startService}.
 * RESULT {@code relay-latency}.
 */
final class BlackBoxLatency {

    /**
     * One round of the untimed trickle after the warm-up drain. Rounds repeat until the service has nearly stopped
     * compiling ({@link JitWarmUp}), at most {@link #TRICKLE_MAX_ROUNDS}: a drain compiles the batch path, a trickle
     * other code (wake-ups, small claims, lingers), and after one 10 s round the service's C2 compiler still took a
     * third of its CPU through a measured 2,000/s run (async-profiler).
     */
    static final Duration TRICKLE_WARMUP = Duration.ofSeconds(10);
    static final int TRICKLE_MAX_ROUNDS = Integer.getInteger("dispatcher.bench.trickle-rounds", 6);

    private BlackBoxLatency() {
    }

    static String run(BenchEnvironment env, BenchOptions options) throws Exception {
        BenchOptions o = options;
        BlackBoxDrain.Topics topics = BlackBoxDrain.Topics.create(env);
        String schema = topics.schema();
        String topic = topics.measured();
        String warmTopic = topics.warmUp();
        try (ServiceProcess service = BlackBoxDrain.startService(env, o, schema)) {
            JitWarmUp.CompilationClock compilation = JitWarmUp.service(service);
            if (o.warmup() > 0) {
                o = o.withWarmup((int) BlackBoxDrain.warmUp(env, o, compilation, schema, warmTopic));
            }
            try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                    Confirmations.Fetch.LATENCY)) {
                BenchOptions measured = o;
                long trickled = JitWarmUp.untilCompiled("trickle", compilation, () ->
                        RelayBenchmark.offer(env, schema, topic, measured.withDuration(TRICKLE_WARMUP), confirmed)
                                .committedAt().size(), TRICKLE_MAX_ROUNDS);
                System.out.printf(Locale.ROOT, "warm-up: %d messages drained and %d trickled at %d/s (not reported)%n",
                        o.warmup(), trickled, o.rate());
                JitWarmUp.Phase phase = JitWarmUp.Phase.start(compilation);
                RelayBenchmark.LatencyRun run = RelayBenchmark.offer(env, schema, topic, o, confirmed);
                double compiling = phase.compilingShare();
                Map<String, Object> result = run.result(env, o, schema, topic);
                result.put("service_compiling_share", RelayBenchmark.round2(compiling));
                return RelayBenchmark.json(result);
            }
        }
    }
}
