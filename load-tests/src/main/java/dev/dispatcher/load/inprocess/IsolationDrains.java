package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.mode.Drain;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.util.Locale;

/**
 * The drain mode's isolation comparisons, each with its clean reference drained in the same run, in the same JVM:
 * <ul>
 *   <li>{@code --poison-topic}: the N rows again, with one row for a topic that does not exist first among them (a
 *       key of its own), against the clean drain. With the broker's topic auto-creation off the row's topic is
 *       missing; the relay holds that row back and the N rows must not wait for it.</li>
 *   <li>{@code --failing-key}: N rows of 64 keys whose {@code key-0} fails on every attempt ({@link
 *       FailingKeyPartitioner}): the rate of the other 63 keys' rows, against a drain of the same 63 keys' rows
 *       alone.</li>
 * </ul>
 * Every drain's lost and duplicate rows count in the run's.
 *
 * @param fields the RESULT fields of the comparisons that ran
 * @param lost rows of these drains never seen on Kafka
 * @param duplicates rows of these drains seen more than once
 */
record IsolationDrains(RelayDrain.Isolation fields, long lost, long duplicates) {

    /** The key that fails with {@code --failing-key}. */
    static final String FAILING_KEY = "key-0";

    /** The comparisons {@code d} asks for; {@code clean} is the run's plain drain. */
    static IsolationDrains measure(ServiceDrain drains, Drain d, ServiceDrain.Run clean) throws Exception {
        Double poisonRate = null;
        Double poisonRatio = null;
        Double besideRate = null;
        Double aloneRate = null;
        Double failingRatio = null;
        long lost = 0;
        long duplicates = 0;
        int n = d.backlog().n();
        if (d.poisonTopic()) {
            ServiceDrain.Run poisoned = drains.drain(n,
                    new ServiceDrain.Shape(d.backlog().keys().sqlExpression(), true, null));
            poisonRate = Round.one(poisoned.msgsPerSecond());
            poisonRatio = Round.two(poisoned.msgsPerSecond() / clean.msgsPerSecond());
            System.out.printf(Locale.ROOT, "poison-topic: %.0f msgs/s with a missing topic's row among them, %.0f"
                    + " without (%.2f)%n", poisoned.msgsPerSecond(), clean.msgsPerSecond(),
                    poisoned.msgsPerSecond() / clean.msgsPerSecond());
            lost += poisoned.lost();
            duplicates += poisoned.duplicates();
        }
        if (d.failingKey()) {
            ServiceDrain.Run alone = drains.drain(n - n / 64,
                    new ServiceDrain.Shape("'key-' || (1 + g % 63)", false, null));
            ServiceDrain.Run beside = drains.drain(n,
                    new ServiceDrain.Shape("'key-' || (g % 64)", false, FAILING_KEY));
            besideRate = Round.one(beside.msgsPerSecond());
            aloneRate = Round.one(alone.msgsPerSecond());
            failingRatio = Round.two(beside.msgsPerSecond() / alone.msgsPerSecond());
            System.out.printf(Locale.ROOT, "failing-key: the 63 other keys at %.0f msgs/s beside a failing key, %.0f"
                    + " alone (%.2f)%n", beside.msgsPerSecond(), alone.msgsPerSecond(),
                    beside.msgsPerSecond() / alone.msgsPerSecond());
            lost += alone.lost() + beside.lost();
            duplicates += alone.duplicates() + beside.duplicates();
        }
        return new IsolationDrains(new RelayDrain.Isolation(poisonRate, poisonRatio, besideRate, aloneRate,
                failingRatio), lost, duplicates);
    }
}
