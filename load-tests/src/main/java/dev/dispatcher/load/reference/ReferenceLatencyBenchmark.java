package dev.dispatcher.load.reference;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.LatencyLoad;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxLatency;
import dev.dispatcher.load.mode.Latency;
import dev.dispatcher.load.mode.ReferenceLatency;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayLatency;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code reference-latency}: the load and measurement of {@code blackbox-latency} ({@link LatencyLoad}), with {@link
 * ReferenceRelay} in its own JVM in place of the service: what commit-to-Kafka latency the machine allows a simple
 * batching relay at the offered rate, on the same servers, table, writers and consumer. The reference drains {@code
 * --warmup} rows to a topic of their own, the outbox is vacuumed, then {@link BlackBoxLatency#trickleMaxRounds()}
 * rounds of {@link Latency#TRICKLE_WARMUP} of the measured load (all of them: the reference has no compilation clock
 * to read; one without a warm-up, as in CI's quick run) come before the measured phase. RESULT {@code relay-latency}
 * with {@code relay} {@code reference} and {@code reference_loops}.
 */
public final class ReferenceLatencyBenchmark {

    private ReferenceLatencyBenchmark() {
    }

    public static RelayLatency run(BenchEnvironment env, ReferenceLatency r) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        String schema = env.schema("reference");
        String topic = "bench-" + schema;
        String warmTopic = topic + "-warm";
        env.createTopic(topic, 6);
        env.createTopic(warmTopic, 6);
        if (r.warmup() > 0) {
            outbox.insert(schema, warmTopic, r.keys().sqlExpression(), r.payloadBytes(), r.warmup());
        }
        Path log = BenchLog.serviceLog("reference-relay");
        Process relay = start(env, schema, r.loops(), log);
        try {
            if (!outbox.awaitNoBacklog(schema, Duration.ofMillis(100), Duration.ofMinutes(10),
                    Progress.of("warm-up"))) {
                throw new IllegalStateException("the reference relay did not drain the warm-up; see " + log);
            }
            outbox.vacuum(schema);
            LatencyLoad load = new LatencyLoad(env, schema, topic, r.rate(), r.payloadBytes());
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                    Confirmations.Fetch.LATENCY)) {
                long trickled = 0;
                int rounds = r.warmup() > 0 ? BlackBoxLatency.trickleMaxRounds() : 1;
                for (int round = 0; round < rounds; round++) {
                    trickled += load.offer(Latency.TRICKLE_WARMUP, confirmed).offered();
                }
                System.out.printf(Locale.ROOT, "warm-up: %d messages drained and %d trickled at %d/s in %d rounds"
                        + " (not reported)%n", r.warmup(), trickled, r.rate(), rounds);
                LatencyLoad.Run run = load.offer(r.duration(), confirmed);
                return run.result(Common.of(env.fsync(), r.ordering().text(), r.keys().text(), r.payloadBytes(),
                        r.warmup(), r.warmup() > 0 ? 1 : 0)).ofReference(r.loops());
            }
        } finally {
            relay.destroy();
            if (!relay.waitFor(30, TimeUnit.SECONDS)) {
                relay.destroyForcibly().waitFor();
            }
        }
    }

    /** {@link ReferenceRelay} in a JVM of its own, the same JDK as this one; waits until it listens. */
    private static Process start(BenchEnvironment env, String schema, int loops, Path log) throws Exception {
        Files.createDirectories(log.toAbsolutePath().getParent());
        List<String> command = List.of(ServiceProcess.javaCommand(),
                "-Dlogback.configurationFile=" + ServiceProcess.CHILD_LOGGING, "-cp", ServiceProcess.harnessClassPath(),
                ReferenceRelay.class.getName(), env.postgres().jdbcUrl(), env.postgres().username(),
                env.postgres().password(), schema, env.kafka().bootstrapServers(), Integer.toString(loops));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the reference relay exited with " + process.exitValue() + "; see "
                        + log);
            }
            if (Files.readString(log).contains(" listening on ")) {
                System.out.printf(Locale.ROOT, "reference relay: pid %d, log %s%n", process.pid(), log);
                return process;
            }
            Thread.sleep(100); // the harness's main thread: waiting is its job
        }
        process.destroyForcibly();
        throw new IllegalStateException("the reference relay did not start within a minute; see " + log);
    }
}
