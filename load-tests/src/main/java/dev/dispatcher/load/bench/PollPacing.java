package dev.dispatcher.load.bench;

import java.time.Duration;

/**
 * How long a harness waits before it counts a drain's effects again, when each count costs work on the machine under
 * test (a {@code count(*)} over the effect rows): a quarter of the time the drain still needs at the rate of the last
 * interval, between {@code min} and {@code max}. Far from the end it counts seldom; near it, every {@code min}, so the
 * drain's measured end is late by at most {@code min} unless the rate grows more than fourfold within one wait.
 */
public final class PollPacing {

    private PollPacing() {
    }

    /**
     * The next wait after a count of {@code done} of {@code target}, {@code gained} more than the count before, which
     * was {@code interval} ago.
     */
    public static Duration next(Duration min, Duration max, long done, long target, long gained, Duration interval) {
        if (gained <= 0 || done >= target || interval.isZero() || interval.isNegative()) {
            return min;
        }
        double perNano = gained / (double) interval.toNanos();
        long quarterOfRemaining = (long) ((target - done) / perNano / 4);
        return Duration.ofNanos(Math.clamp(quarterOfRemaining, min.toNanos(), max.toNanos()));
    }
}
