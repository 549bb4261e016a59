package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.LatencyLoad;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxLatency;
import dev.dispatcher.load.mode.Latency;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayLatency;
import dev.dispatcher.load.result.Round;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox-latency}: the latency load ({@link LatencyLoad}) against the service jar ({@code java -jar}, its
 * defaults but {@code --ordering}). The service first drains {@code --warmup} rows in rounds to topics of their own
 * and the outbox is vacuumed ({@link BlackBoxDrainBenchmark#warmUp}); then rounds of {@link Latency#TRICKLE_WARMUP}
 * of the measured load, untimed, to the measured topic, until it has nearly stopped compiling (at most {@link
 * BlackBoxLatency#trickleMaxRounds()}); both in the same table, as a running service's table has history. Then the
 * measured load; the consumer times those rows only. With {@code --pooler} the service runs behind PgBouncer in
 * transaction pooling mode as {@link PoolerDrain} starts it ({@code LISTEN} straight at the server), and the RESULT
 * says which ({@code pooler}). RESULT {@code relay-latency} with {@code service_compiling_share}.
 */
public final class BlackBoxLatencyBenchmark {

    private BlackBoxLatencyBenchmark() {
    }

    public static RelayLatency run(BenchEnvironment env, BlackBoxLatency b) throws Exception {
        BlackBoxDrainBenchmark.Topics topics = BlackBoxDrainBenchmark.Topics.create(env, "blackbox");
        try (AutoCloseable running = b.pooler()
                ? PoolerDrain.start(env, topics.schema(), b.ordering(), b.serviceArgs(), Services.jvmOptions(""),
                        "blackbox-latency-pooler-service")
                : Services.startJar(env, topics.schema(), ServiceArguments.relay(b.ordering(), b.serviceArgs()),
                        "blackbox-latency-service")) {
            ServiceClient client = running instanceof PoolerDrain.Pooled pooled ? pooled.service().client()
                    : ((ServiceProcess) running).client();
            JitWarmUp.CompilationClock compilation = JitWarmUp.service(client);
            JitWarmUp.Result warm = BlackBoxDrainBenchmark.warmUp(env, List.of(client), compilation, topics,
                    b.keys().sqlExpression(), b.payloadBytes(), b.warmup());
            LatencyLoad load = new LatencyLoad(env, topics.schema(), topics.measured(), b.rate(), b.payloadBytes());
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topics.measured(), 6,
                    Confirmations.Fetch.LATENCY)) {
                JitWarmUp.Result trickled = JitWarmUp.untilCompiled("trickle", compilation,
                        () -> load.offer(Latency.TRICKLE_WARMUP, confirmed).offered(),
                        BlackBoxLatency.trickleMaxRounds());
                System.out.printf(Locale.ROOT, "warm-up: %d messages drained and %d trickled at %d/s (not reported)%n",
                        warm.rows(), trickled.rows(), b.rate());
                JitWarmUp.Phase phase = JitWarmUp.Phase.start(compilation);
                LatencyLoad.Run run = load.offer(b.duration(), confirmed);
                double compiling = phase.compilingShare();
                RelayLatency result = run.result(Common.of(env.fsync(), b.ordering().text(), b.keys().text(),
                        b.payloadBytes(), warm.rows(), warm.rounds())).withServiceCompilingShare(Round.two(compiling));
                return b.pooler() ? result.behind(PoolerDrain.version()) : result;
            }
        }
    }
}
