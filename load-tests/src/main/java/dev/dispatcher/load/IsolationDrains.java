package dev.dispatcher.load;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The drain mode's isolation comparisons, each with its clean reference drained in the same run, in the same JVM:
 * <ul>
 *   <li>{@code --poison-topic}: the N rows again, with one row for a topic that does not exist first among them (a
 *       key of its own), against the clean drain. With the broker's topic auto-creation off the row's topic is
 *       missing; the relay holds that row back and the N rows must not wait for it.</li>
 *   <li>{@code --failing-key}: N rows of 64 keys whose {@code key-0} fails on every attempt (injected at the
 *       publisher's boundary, {@link FailingKeyPublisher}): the rate of the other 63 keys' rows, against a drain of
 *       the same 63 keys' rows alone.</li>
 * </ul>
 * Each adds its RESULT fields; every drain's lost and duplicate rows count in the run's.
 *
 * @param fields the RESULT fields of the comparisons that ran
 * @param lost rows of these drains never seen on Kafka
 * @param duplicates rows of these drains seen more than once
 */
record IsolationDrains(Map<String, Object> fields, long lost, long duplicates) {

    /** The comparisons {@code o} asks for; {@code clean} is the run's plain drain. */
    static IsolationDrains measure(BenchEnvironment env, BenchOptions o, RelayBenchmark.DrainRun clean)
            throws Exception {
        Map<String, Object> fields = new LinkedHashMap<>();
        long lost = 0;
        long duplicates = 0;
        if (o.poisonTopic()) {
            RelayBenchmark.DrainRun poisoned = drain(env, o, o.n(),
                    new RelayBenchmark.DrainShape(o.keyExpression(), true, null));
            fields.put("poison_msgs_per_s", RelayBenchmark.round(poisoned.msgsPerSecond()));
            fields.put("ratio_to_clean", RelayBenchmark.round2(poisoned.msgsPerSecond() / clean.msgsPerSecond()));
            System.out.printf(Locale.ROOT, "poison-topic: %.0f msgs/s with a missing topic's row among them, %.0f"
                    + " without (%.2f)%n", poisoned.msgsPerSecond(), clean.msgsPerSecond(),
                    poisoned.msgsPerSecond() / clean.msgsPerSecond());
            lost += poisoned.lost();
            duplicates += poisoned.duplicates();
        }
        if (o.failingKey()) {
            int otherKeysRows = o.n() - o.n() / 64;
            RelayBenchmark.DrainRun alone = drain(env, o, otherKeysRows,
                    new RelayBenchmark.DrainShape("'key-' || (1 + g % 63)", false, null));
            RelayBenchmark.DrainRun beside = drain(env, o, o.n(),
                    new RelayBenchmark.DrainShape("'key-' || (g % 64)", false, "key-0"));
            fields.put("failing_key_msgs_per_s", RelayBenchmark.round(beside.msgsPerSecond()));
            fields.put("failing_key_clean_msgs_per_s", RelayBenchmark.round(alone.msgsPerSecond()));
            fields.put("failing_key_ratio_to_clean",
                    RelayBenchmark.round2(beside.msgsPerSecond() / alone.msgsPerSecond()));
            System.out.printf(Locale.ROOT, "failing-key: the 63 other keys at %.0f msgs/s beside a failing key, %.0f"
                    + " alone (%.2f)%n", beside.msgsPerSecond(), alone.msgsPerSecond(),
                    beside.msgsPerSecond() / alone.msgsPerSecond());
            lost += alone.lost() + beside.lost();
            duplicates += alone.duplicates() + beside.duplicates();
        }
        return new IsolationDrains(fields, lost, duplicates);
    }

    private static RelayBenchmark.DrainRun drain(BenchEnvironment env, BenchOptions o, int n,
            RelayBenchmark.DrainShape shape) throws Exception {
        return RelayBenchmark.relayDrain(env, o, o.batchSize(), o.concurrency(), o.inFlight(), n, shape);
    }
}
