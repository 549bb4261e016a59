package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.mode.RelayTuning;
import dev.dispatcher.load.mode.Sweep;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelaySweep;
import dev.dispatcher.load.result.Round;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code sweep}: after a warm-up with the service's default settings, one in-process drain of N rows ({@link
 * ServiceDrain}) per cell of batch size x publish concurrency x in-flight batches ({@link Sweep#cells()}); prints the
 * table. RESULT {@code relay-sweep} with the fastest cell.
 */
public final class SweepBenchmark {

    private SweepBenchmark() {
    }

    public static RelaySweep run(BenchEnvironment env, Sweep s) throws Exception {
        RelayTuning defaults = new RelayTuning(RelayTuning.DEFAULTS.batchSize(), RelayTuning.DEFAULTS.inFlight(),
                RelayTuning.DEFAULTS.concurrency(), s.claimLinger());
        String keys = s.backlog().keys().sqlExpression();
        int n = s.backlog().n();
        JitWarmUp.Result warm = InProcessWarmUp.run(env, defaults, s.ordering(), keys, s.backlog().payloadBytes(),
                s.warmup());
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%10s %12s %10s %12s %6s %6s", "batch", "concurrency", "in-flight",
                "msgs/s", "lost", "dups"));
        Sweep.Cell best = null;
        ServiceDrain.Run bestRun = null;
        for (Sweep.Cell cell : s.cells()) {
            RelayTuning tuning = defaults.with(cell.batchSize(), cell.concurrency(), cell.inFlight());
            ServiceDrain.Run run = new ServiceDrain(env, tuning, s.ordering(), s.backlog().payloadBytes())
                    .drain(n, ServiceDrain.Shape.plain(keys));
            table.add(String.format(Locale.ROOT, "%10d %12d %10d %12.0f %6d %6d", cell.batchSize(), cell.concurrency(),
                    cell.inFlight(), run.msgsPerSecond(), run.lost(), run.duplicates()));
            if (bestRun == null || run.msgsPerSecond() > bestRun.msgsPerSecond()) {
                best = cell;
                bestRun = run;
            }
        }
        System.out.println("sweep (" + n + " messages each, ordering " + s.ordering().text() + ", keys "
                + s.backlog().keys().text() + "):");
        table.forEach(System.out::println);
        return new RelaySweep(Common.of(env.fsync(), s.ordering().text(), s.backlog().keys().text(),
                s.backlog().payloadBytes(), warm.rows(), warm.rounds()), n, best.batchSize(), best.concurrency(),
                best.inFlight(), Round.one(bestRun.msgsPerSecond()), bestRun.lost(), bestRun.duplicates());
    }
}
