package dev.dispatcher.load;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.blackbox.BlackBoxDrainBenchmark;
import dev.dispatcher.load.blackbox.BlackBoxInboxBenchmark;
import dev.dispatcher.load.blackbox.BlackBoxLatencyBenchmark;
import dev.dispatcher.load.blackbox.FormatsDrainBenchmark;
import dev.dispatcher.load.blackbox.HostileBenchmark;
import dev.dispatcher.load.blackbox.ImageDrainBenchmark;
import dev.dispatcher.load.blackbox.LargeDrainBenchmark;
import dev.dispatcher.load.blackbox.NewTopicBenchmark;
import dev.dispatcher.load.blackbox.OverloadBenchmark;
import dev.dispatcher.load.blackbox.ScaleBenchmark;
import dev.dispatcher.load.blackbox.SourcesBenchmark;
import dev.dispatcher.load.blackbox.SustainedBenchmark;
import dev.dispatcher.load.inprocess.DrainBenchmark;
import dev.dispatcher.load.inprocess.InboxBenchmark;
import dev.dispatcher.load.inprocess.LatencyBenchmark;
import dev.dispatcher.load.inprocess.SweepBenchmark;
import dev.dispatcher.load.mode.BenchMode;
import dev.dispatcher.load.mode.BlackBox;
import dev.dispatcher.load.mode.BlackBoxFormats;
import dev.dispatcher.load.mode.BlackBoxImage;
import dev.dispatcher.load.mode.BlackBoxInbox;
import dev.dispatcher.load.mode.BlackBoxLatency;
import dev.dispatcher.load.mode.BlackBoxNewTopic;
import dev.dispatcher.load.mode.BlackBoxScale;
import dev.dispatcher.load.mode.BlackBoxSources;
import dev.dispatcher.load.mode.Drain;
import dev.dispatcher.load.mode.Hostile;
import dev.dispatcher.load.mode.Inbox;
import dev.dispatcher.load.mode.LargeDrain;
import dev.dispatcher.load.mode.Latency;
import dev.dispatcher.load.mode.Overload;
import dev.dispatcher.load.mode.ReferenceLatency;
import dev.dispatcher.load.mode.Scale;
import dev.dispatcher.load.mode.Sustained;
import dev.dispatcher.load.mode.Sweep;
import dev.dispatcher.load.reference.ReferenceLatencyBenchmark;
import dev.dispatcher.load.result.BenchResult;

/**
 * The relay and inbox benchmarks: {@code RelayBenchmark <mode> [--option value ...]}, the modes of {@link BenchMode}
 * (docs/benchmarks.md). Parses the mode and its options (a bad one fails naming it, exit status 2), starts the
 * servers, runs the mode and prints its {@code RESULT {json}} line last ({@link BenchResult}). The console holds
 * progress lines and the RESULT; the servers' logs go to files ({@link BenchLog}).
 */
public final class RelayBenchmark {

    private RelayBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        BenchMode mode;
        try {
            mode = BenchMode.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(BenchMode.usage());
            System.exit(2);
            return;
        }
        BenchLog.startRun();
        BenchResult result;
        try (BenchEnvironment env = BenchEnvironment.start(mode.servers(), mode.brokerCreatesTopics())) {
            result = run(env, mode);
        }
        System.out.println(result.line());
        System.exit(0);
    }

    /** Runs {@code mode} on {@code env}. */
    public static BenchResult run(BenchEnvironment env, BenchMode mode) throws Exception {
        return switch (mode) {
            case Drain d -> DrainBenchmark.run(env, d);
            case Latency l -> LatencyBenchmark.run(env, l);
            case Sweep s -> SweepBenchmark.run(env, s);
            case Inbox i -> InboxBenchmark.run(env, i);
            case Scale s -> ScaleBenchmark.scale(env, s);
            case BlackBox b -> BlackBoxDrainBenchmark.run(env, b);
            case BlackBoxScale b -> ScaleBenchmark.blackBoxScale(env, b);
            case BlackBoxLatency b -> BlackBoxLatencyBenchmark.run(env, b);
            case ReferenceLatency r -> ReferenceLatencyBenchmark.run(env, r);
            case Overload o -> OverloadBenchmark.run(env, o);
            case LargeDrain l -> LargeDrainBenchmark.run(env, l);
            case BlackBoxSources b -> SourcesBenchmark.run(env, b);
            case BlackBoxFormats f -> FormatsDrainBenchmark.run(env, f);
            case Sustained s -> SustainedBenchmark.run(env, s);
            case BlackBoxInbox b -> BlackBoxInboxBenchmark.run(env, b);
            case BlackBoxNewTopic b -> NewTopicBenchmark.run(env, b);
            case BlackBoxImage b -> ImageDrainBenchmark.run(env, b);
            case Hostile h -> HostileBenchmark.run(env, h);
        };
    }
}
