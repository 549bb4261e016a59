package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.reference.PgCeiling;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A scaling curve: the same drain of N rows by 1, 2 and 4 services, step by step, then the reference ceiling once;
 * shared by {@code scale} and {@code blackbox-scale}. Prints each step with its measured window and the Applied
 * Deliver transitions summed over the services (must equal N).
 */
final class ScaleCurve {

    /** The curve's steps unless {@code -Ddispatcher.bench.scale-instances} says otherwise. */
    static final String DEFAULT_INSTANCES = "1,2,4";

    private ScaleCurve() {
    }

    /** {@code -Ddispatcher.bench.scale-instances=1,2,4} (the default) or another list. */
    static int[] instances() {
        return Arrays.stream(System.getProperty("dispatcher.bench.scale-instances", DEFAULT_INSTANCES).split(","))
                .map(String::strip).mapToInt(Integer::parseInt).toArray();
    }

    /**
     * One step of the curve; {@code window} is its measured span in UTC, to match against {@code pidstat} or
     * PostgreSQL's log; {@code warm} what its warm-up drained.
     */
    record Step(int instances, double msgsPerSecond, long appliedDelivers, long lost, long duplicates, String window,
            JitWarmUp.Result warm) {
    }

    /** Drains with {@code instances} services. */
    interface StepRun {
        Step run(int instances) throws Exception;
    }

    /**
     * Runs every step, then the reference ceiling; returns the RESULT {@code relay-drain} for the largest step, with
     * the whole curve ({@code warmup_n} and {@code warmup_rounds} are that step's).
     *
     * @param serviceJar {@code true} for blackbox-scale, null otherwise
     */
    static RelayDrain run(BenchEnvironment env, String mode, int n, String ordering, String keys, int payloadBytes,
            StepRun step, Boolean serviceJar) throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int k : instances()) {
            Step s = step.run(k);
            System.out.printf(Locale.ROOT, "%s: %d instance(s): %.0f msgs/s, Applied Deliver summed %d of %d, lost %d,"
                    + " duplicates %d; measured %s UTC%n", mode, k, s.msgsPerSecond(), s.appliedDelivers(), n,
                    s.lost(), s.duplicates(), s.window());
            steps.add(s);
        }
        double ceiling = PgCeiling.measure(env, env.schema("ceiling"), n);
        Step last = steps.getLast();
        return RelayDrain.curve(Common.of(env.fsync(), ordering, keys, payloadBytes, last.warm().rows(),
                        last.warm().rounds()), n, last.instances(), Round.one(last.msgsPerSecond()), Round.one(ceiling),
                Round.two(last.msgsPerSecond() / ceiling),
                String.join(" ", steps.stream().map(s -> s.instances() + ":" + Math.round(s.msgsPerSecond())).toList()),
                String.join(" ", steps.stream().map(s -> s.instances() + ":" + s.appliedDelivers()).toList()),
                steps.stream().mapToLong(Step::lost).sum(), steps.stream().mapToLong(Step::duplicates).sum(),
                serviceJar);
    }
}
