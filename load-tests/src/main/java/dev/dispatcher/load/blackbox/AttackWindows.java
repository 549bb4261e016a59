package dev.dispatcher.load.blackbox;

import java.time.Duration;
import java.util.Locale;

/**
 * An attack measured between two windows of the same producers without it, one before and one after: the service's
 * JIT and a shared machine's load drift within a run, and a drift that is steady cancels in the mean of the two
 * baselines, which a window before alone would count for or against the attack.
 *
 * @param before the producers without the attack
 * @param attacked the producers while it ran
 * @param after the producers once it ended
 * @param attack how the attack's requests ended
 */
record AttackWindows(IngestProducers.Window before, IngestProducers.Window attacked, IngestProducers.Window after,
        StatusTally attack) {

    /** An attack on the service that runs from {@link #start} until {@link #stop}. */
    interface Attack {

        void start();

        /** Stops the attack and returns how its requests ended. */
        StatusTally stop() throws InterruptedException;
    }

    /** {@code producers} producers of {@code ingest} for {@code window} before, during and after {@code attack}. */
    static AttackWindows measure(IngestProducers ingest, int producers, Duration window, Attack attack)
            throws InterruptedException {
        IngestProducers.Window before = ingest.run(producers, window);
        IngestProducers.Window attacked;
        StatusTally ends;
        attack.start();
        try {
            attacked = ingest.run(producers, window);
        } finally {
            ends = attack.stop();
        }
        return new AttackWindows(before, attacked, ingest.run(producers, window), ends);
    }

    /** The mean of the rates before and after. */
    double baselineMsgsPerS() {
        return (before.msgsPerS() + after.msgsPerS()) / 2;
    }

    /** The rate during the attack over {@link #baselineMsgsPerS()}; 0 without a baseline. */
    double ratio() {
        return baselineMsgsPerS() > 0 ? attacked.msgsPerS() / baselineMsgsPerS() : 0;
    }

    /** The mean of the p99 latencies before and after. */
    double baselineP99Ms() {
        return (before.p99Ms() + after.p99Ms()) / 2;
    }

    /** {@code "<before> <after>"} msgs/s. */
    String baselineRates() {
        return String.format(Locale.ROOT, "%.1f %.1f", before.msgsPerS(), after.msgsPerS());
    }

    /** {@code "<before> <after>"} p99 ms. */
    String baselineP99s() {
        return String.format(Locale.ROOT, "%.1f %.1f", before.p99Ms(), after.p99Ms());
    }
}
