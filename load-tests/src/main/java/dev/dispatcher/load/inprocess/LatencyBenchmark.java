package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.HarnessRelay;
import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.LatencyLoad;
import dev.dispatcher.load.bench.PrometheusText;
import dev.dispatcher.load.mode.Latency;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayLatency;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code latency}: writer threads offer {@code --rate} one-row transactions a second for {@code --duration-s} into a
 * fresh in-process service's outbox ({@link LatencyLoad}); commit-to-Kafka percentiles from the consumer. After the
 * warm-up drain ({@link InProcessWarmUp}) the same load runs for {@link Latency#TRICKLE_WARMUP} on a service and
 * schema of its own, untimed: a drain compiles the batch path, a trickle other code (wake-ups, small claims,
 * lingers). Prints the relay's own view from its Prometheus endpoint. RESULT {@code relay-latency}.
 */
public final class LatencyBenchmark {

    private LatencyBenchmark() {
    }

    public static RelayLatency run(BenchEnvironment env, Latency l) throws Exception {
        JitWarmUp.Result warm = InProcessWarmUp.run(env, l.tuning(), l.ordering(), l.keys().sqlExpression(),
                l.payloadBytes(), l.warmup());
        Common common = Common.of(env.fsync(), l.ordering().text(), l.keys().text(), l.payloadBytes(), warm.rows(),
                warm.rounds());
        if (l.warmup() > 0) {
            offer(env, l, Latency.TRICKLE_WARMUP, common);
            System.out.printf(Locale.ROOT, "warm-up: %d s of the same load at %d/s (not reported)%n",
                    Latency.TRICKLE_WARMUP.toSeconds(), l.rate());
        }
        return offer(env, l, l.duration(), common);
    }

    /** The load for {@code duration} on a fresh service and schema. */
    private static RelayLatency offer(BenchEnvironment env, Latency l, Duration duration, Common common)
            throws Exception {
        String schema = env.serviceSchema("latency");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        try (InProcessService service = InProcessService.start(env, schema,
                HarnessRelay.arguments(l.tuning(), l.ordering()), List.of());
             Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                     Confirmations.Fetch.LATENCY)) {
            Thread.sleep(1000); // main thread: let the relay's listener and the consumer connect before the load
            LatencyLoad.Run run = new LatencyLoad(env, schema, topic, l.rate(), l.payloadBytes())
                    .offer(duration, confirmed);
            printRelayView(service.client().prometheus());
            return run.result(common);
        }
    }

    /**
     * The relay's own view, to tell where latency goes: commit (the row's {@code created_at}) to Kafka's
     * acknowledgement, and the send alone, as mean and (decaying) max of its timers.
     */
    private static void printRelayView(String exposition) {
        PrometheusText.Timer commit = PrometheusText.timer(exposition, "dispatcher_commit_to_publish");
        PrometheusText.Timer send = PrometheusText.timer(exposition, "dispatcher_publish_latency");
        System.out.printf(Locale.ROOT, "relay view: commit-to-ack mean %.1f ms max %.0f ms; send mean %.1f ms max %.0f"
                + " ms over %d sends%n", commit.meanMillis(), commit.maxMillis(), send.meanMillis(), send.maxMillis(),
                send.count());
    }
}
