package dev.dispatcher.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scaling curve: the same drain of N rows by 1, 2 and 4 relay instances, step by step, then the reference ceiling
 * once; shared by {@code scale} (the harness's relays) and {@code blackbox-scale} (the service jar). Prints each step
 * with its measured window and the Applied Deliver transitions summed over the instances (must equal N).
 */
final class ScaleCurve {

    /** The curve's steps: {@code -Ddispatcher.bench.scale-instances=1,2,4} (the default) or another list. */
    private static final int[] INSTANCES = Arrays.stream(
            System.getProperty("dispatcher.bench.scale-instances", "1,2,4").split(","))
            .map(String::strip).mapToInt(Integer::parseInt).toArray();

    private ScaleCurve() {
    }

    /**
     * One step of the curve; {@code window} is its measured span in UTC, to match against {@code pidstat} or
     * PostgreSQL's log.
     */
    record Step(int instances, double msgsPerSecond, long appliedDelivers, long lost, long duplicates, String window) {
    }

    /** Drains with {@code instances} relay instances. */
    interface StepRun {
        Step run(int instances) throws Exception;
    }

    /**
     * Runs every step, then the reference ceiling; returns the RESULT fields of {@code relay-drain} for the largest
     * step, with the whole curve.
     */
    static Map<String, Object> run(BenchEnvironment env, BenchOptions o, String mode, StepRun step) throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int k : INSTANCES) {
            Step s = step.run(k);
            System.out.printf(Locale.ROOT, "%s: %d instance(s): %.0f msgs/s, Applied Deliver summed %d of %d, lost %d,"
                    + " duplicates %d; measured %s UTC%n", mode, k, s.msgsPerSecond(), s.appliedDelivers(), o.n(),
                    s.lost(), s.duplicates(), s.window());
            steps.add(s);
        }
        double ceiling = PgCeiling.measure(env, env.schema("ceiling"), o.n());
        Step last = steps.getLast();
        Map<String, Object> r = RelayBenchmark.common(env, o, "relay-drain");
        r.put("n", o.n());
        r.put("instances", last.instances());
        r.put("msgs_per_s", RelayBenchmark.round(last.msgsPerSecond()));
        r.put("baseline_msgs_per_s", 0);
        r.put("pg_ceiling_msgs_per_s", RelayBenchmark.round(ceiling));
        r.put("ratio_to_ceiling", RelayBenchmark.round2(last.msgsPerSecond() / ceiling));
        r.put("curve", String.join(" ", steps.stream().map(s -> s.instances() + ":"
                + Math.round(s.msgsPerSecond())).toList()));
        r.put("applied_deliver_sums", String.join(" ", steps.stream().map(s -> s.instances() + ":"
                + s.appliedDelivers()).toList()));
        r.put("lost", steps.stream().mapToLong(Step::lost).sum());
        r.put("duplicates", steps.stream().mapToLong(Step::duplicates).sum());
        return r;
    }
}
