package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.mode.Drain;
import dev.dispatcher.load.reference.NaiveRelay;
import dev.dispatcher.load.reference.PgCeiling;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.util.Locale;

/**
 * {@code drain}: the in-process service drains N seeded rows ({@link ServiceDrain}), timed until the harness's
 * consumer has seen all N ids. In the same run, after a warm-up ({@link InProcessWarmUp}): the fixed PostgreSQL-only
 * reference ceiling ({@link PgCeiling}) before and after the drain, the higher counting; the isolation drains asked
 * for ({@link IsolationDrains}); the naive baseline relay on up to {@value Drain#BASELINE_MAX_N} rows. RESULT
 * {@code relay-drain}.
 */
public final class DrainBenchmark {

    private DrainBenchmark() {
    }

    public static RelayDrain run(BenchEnvironment env, Drain d) throws Exception {
        String keys = d.backlog().keys().sqlExpression();
        int n = d.backlog().n();
        JitWarmUp.Result warm = InProcessWarmUp.run(env, d.tuning(), d.ordering(), keys, d.backlog().payloadBytes(),
                d.warmup());
        ServiceDrain drains = new ServiceDrain(env, d.tuning(), d.ordering(), d.backlog().payloadBytes());
        double ceilingBefore = PgCeiling.measure(env, env.schema("ceiling"), n);
        ServiceDrain.Run relay = drains.drain(n, ServiceDrain.Shape.plain(keys));
        IsolationDrains isolation = IsolationDrains.measure(drains, d, relay);
        PgCeiling.Bracket ceiling = new PgCeiling.Bracket(ceilingBefore,
                PgCeiling.measure(env, env.schema("ceiling"), n));
        int baselineN = Math.min(n, Drain.BASELINE_MAX_N);
        double baseline = d.baseline() ? naiveDrain(env, d, baselineN) : 0;
        double rate = relay.msgsPerSecond();
        return RelayDrain.inProcess(
                Common.of(env.fsync(), d.ordering().text(), d.backlog().keys().text(), d.backlog().payloadBytes(),
                        warm.rows(), warm.rounds()),
                relay.n(), Round.one(rate), Round.one(baseline), baselineN, Round.one(ceiling.higher()),
                ceiling.runs(), baseline > 0 ? Round.one(rate / baseline) : 0, Round.two(rate / ceiling.higher()),
                relay.lost() + isolation.lost(), relay.duplicates() + isolation.duplicates(), isolation.fields(),
                new RelayDrain.Settings(d.tuning().batchSize(), d.tuning().concurrency(), d.tuning().inFlight()));
    }

    /** The naive relay's rate on {@code n} rows of its own schema and topic. */
    private static double naiveDrain(BenchEnvironment env, Drain d, int n) throws Exception {
        String schema = env.schema("naive");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        new OutboxRows(env).insert(schema, topic, d.backlog().keys().sqlExpression(), d.backlog().payloadBytes(), n);
        long start = System.nanoTime();
        long sent = NaiveRelay.drain(env, schema, n);
        double rate = sent / ((System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "baseline: naive relay drained %d messages at %.0f msgs/s%n", sent, rate);
        return rate;
    }
}
