package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.Backlog;
import dev.dispatcher.load.result.FreshStart;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Fresh service jars started together on one standing backlog, as the replicas of a scale-out meet the backlog that
 * caused it: one instance, then {@code instances}. Each step seeds N rows into a migrated schema of its own
 * ({@link FreshStartDrain}), launches its JVMs at once (each start on a thread of its own, none waiting for another to
 * be healthy) and times the drain from the launch by the rows' own {@code delivered_at}, whichever instance delivered
 * them: the steady rate and {@code time_to_80pct_s} of {@code RampUp}, per step. Lost and duplicate rows come from
 * the harness's consumer.
 */
final class FreshScale {

    private FreshScale() {
    }

    /** The steps' figures, and their lost and duplicate rows summed. */
    record Result(RelayDrain.FreshCurve curve, long lost, long duplicates) {
    }

    static Result run(BenchEnvironment env, String mode, ServiceProcess.Launch launch, List<String> arguments,
            Backlog backlog, int instances) throws Exception {
        List<Integer> counts = List.of(1, instances);
        List<FreshStartDrain.Result> steps = new ArrayList<>();
        for (int k : counts) {
            FreshStartDrain.Result step = step(env, mode, launch, arguments, backlog, k);
            System.out.printf(Locale.ROOT, "%s fresh: %d instance(s) started together: time_to_80pct_s %d, steady %.0f"
                    + " msgs/s, %.0f msgs/s first claim to last delivery, all healthy %.1f s after the launch; lost"
                    + " %d, duplicates %d%n", mode, k, step.figures().timeTo80pctS(),
                    step.figures().freshSteadyMsgsPerS(), step.figures().freshMsgsPerS(), step.figures().startupS(),
                    step.lost(), step.duplicates());
            steps.add(step);
        }
        double one = steps.getFirst().figures().freshSteadyMsgsPerS();
        double many = steps.getLast().figures().freshSteadyMsgsPerS();
        return new Result(new RelayDrain.FreshCurve(backlog.n(), curve(counts, steps, FreshStart::freshMsgsPerS),
                curve(counts, steps, FreshStart::freshSteadyMsgsPerS), curve(counts, steps, FreshStart::timeTo80pctS),
                curve(counts, steps, FreshStart::startupS), Round.two(many / one)),
                steps.stream().mapToLong(FreshStartDrain.Result::lost).sum(),
                steps.stream().mapToLong(FreshStartDrain.Result::duplicates).sum());
    }

    private static FreshStartDrain.Result step(BenchEnvironment env, String mode, ServiceProcess.Launch launch,
            List<String> arguments, Backlog backlog, int k) throws Exception {
        BlackBoxDrainBenchmark.Topics topics = BlackBoxDrainBenchmark.Topics.create(env,
                mode.replace('-', '_') + "_fresh", true);
        List<String> jvmOptions = Services.jvmOptions("");
        List<ServiceProcess> services = new ArrayList<>();
        try (FreshStartDrain drain = FreshStartDrain.seed(env, topics.schema(), topics.fresh(),
                backlog.keys().sqlExpression(), backlog.payloadBytes(), backlog.n())) {
            try (ExecutorService starts = Executors.newFixedThreadPool(k)) {
                List<Future<ServiceProcess>> started = new ArrayList<>();
                for (int i = 0; i < k; i++) {
                    String name = mode + "-fresh-" + k + "-service-" + i;
                    started.add(starts.submit(() -> Services.start(env, launch, jvmOptions, topics.schema(), arguments,
                            name)));
                }
                Exception failed = null;
                for (Future<ServiceProcess> start : started) {
                    try {
                        services.add(start.get());
                    } catch (Exception e) {
                        failed = e;
                    }
                }
                if (failed != null) {
                    throw failed;
                }
            }
            // its startup_s: until every instance answered healthy; startup_cpu_s: the first instance's
            return drain.await(services.getFirst(), jvmOptions);
        } finally {
            for (ServiceProcess service : services) {
                service.close();
            }
        }
    }

    private static String curve(List<Integer> counts, List<FreshStartDrain.Result> steps,
            Function<FreshStart, Number> figure) {
        List<String> points = new ArrayList<>();
        for (int i = 0; i < counts.size(); i++) {
            Number value = figure.apply(steps.get(i).figures());
            points.add(counts.get(i) + ":" + (value instanceof Integer ? value : String.format(Locale.ROOT, "%.1f",
                    value.doubleValue())));
        }
        return String.join(" ", points);
    }
}
