package dev.dispatcher.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code reference-latency}: the load and measurement of {@code blackbox-latency}, with {@link ReferenceRelay} in
 * its own JVM in place of the service: what commit-to-Kafka latency the machine allows a simple batching relay at
 * the offered rate, on the same servers, table, writers and consumer. The reference drains {@code --warmup} rows to a
 * topic of its own, the outbox is vacuumed as in {@code blackbox-latency}, then {@link
 * BlackBoxLatency#TRICKLE_MAX_ROUNDS} rounds of {@link BlackBoxLatency#TRICKLE_WARMUP} of the measured load (all of
 * them: the reference has no compilation clock to read; one with {@code --warmup 0}, as in CI's quick run) come
 * before the measured phase. {@code -Ddispatcher.bench.reference-loops} sets the reference's loops (1 by default,
 * which keeps each key's order). RESULT {@code relay-latency} with {@code relay} {@code reference} and {@code
 * reference_loops}.
 */
final class ReferenceLatency {

    /** {@link ReferenceRelay}'s loops: 1 keeps each key's order (per key); more are an unordered reference. */
    private static final int LOOPS = Integer.getInteger("dispatcher.bench.reference-loops", 1);

    private ReferenceLatency() {
    }

    static String run(BenchEnvironment env, BenchOptions o) throws Exception {
        String schema = env.schema("reference");
        String topic = "bench-" + schema;
        String warmTopic = topic + "-warm";
        env.createTopic(topic, 6);
        env.createTopic(warmTopic, 6);
        if (o.warmup() > 0) {
            env.insertRows(schema, warmTopic, o, o.warmup());
        }
        Path log = Path.of("target", "reference-relay.log");
        Process relay = start(env, schema, log);
        try {
            if (!env.awaitNoBacklog(schema, Duration.ofMillis(100), Duration.ofMinutes(10))) {
                throw new IllegalStateException("the reference relay did not drain the warm-up; see " + log);
            }
            BlackBoxDrain.vacuum(env, schema);
            try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                    Confirmations.Fetch.LATENCY)) {
                long trickled = 0;
                int rounds = o.warmup() > 0 ? BlackBoxLatency.TRICKLE_MAX_ROUNDS : 1;
                for (int round = 0; round < rounds; round++) {
                    trickled += RelayBenchmark.offer(env, schema, topic,
                            o.withDuration(BlackBoxLatency.TRICKLE_WARMUP), confirmed).committedAt().size();
                }
                System.out.printf(Locale.ROOT, "warm-up: %d messages drained and %d trickled at %d/s in %d rounds"
                        + " (not reported)%n", o.warmup(), trickled, o.rate(), rounds);
                RelayBenchmark.LatencyRun run = RelayBenchmark.offer(env, schema, topic, o, confirmed);
                Map<String, Object> result = run.result(env, o, schema, topic);
                result.put("relay", "reference");
                result.put("reference_loops", LOOPS);
                return RelayBenchmark.json(result);
            }
        } finally {
            relay.destroy();
            if (!relay.waitFor(30, TimeUnit.SECONDS)) {
                relay.destroyForcibly().waitFor();
            }
        }
    }

    /** {@link ReferenceRelay} in a JVM of its own, the same JDK as this one; waits until it listens. */
    private static Process start(BenchEnvironment env, String schema, Path log) throws Exception {
        Files.createDirectories(log.toAbsolutePath().getParent());
        List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", ScalingBenchmark.childClassPath(), ReferenceRelay.class.getName(), env.postgres.jdbcUrl(),
                env.postgres.username(), env.postgres.password(), schema, env.kafka.bootstrapServers(),
                Integer.toString(LOOPS));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the reference relay exited with " + process.exitValue() + "; see "
                        + log);
            }
            if (Files.readString(log).contains(" listening on ")) {
                System.out.printf(Locale.ROOT, "reference relay: pid %d%n", process.pid());
                return process;
            }
            Thread.sleep(100); // the harness's main thread: waiting is its job
        }
        process.destroyForcibly();
        throw new IllegalStateException("the reference relay did not start within a minute; see " + log);
    }
}
