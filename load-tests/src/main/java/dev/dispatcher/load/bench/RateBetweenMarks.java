package dev.dispatcher.load.bench;

import java.util.OptionalDouble;

/**
 * The rate of a growing count between two of its values ({@code from}, {@code to}), from observations taken now and
 * then: each mark's time is interpolated linearly between the observations before and after it, so the figure does
 * not depend on when the count happened to be read. Not thread-safe: one observer.
 */
public final class RateBetweenMarks {

    private final long from;
    private final long to;
    private long lastCount = -1;
    private long lastNanos;
    private double fromNanos = Double.NaN;
    private double toNanos = Double.NaN;

    public RateBetweenMarks(long from, long to) {
        if (from < 0 || to <= from) {
            throw new IllegalArgumentException("marks " + from + ".." + to);
        }
        this.from = from;
        this.to = to;
    }

    /** The count was {@code count} at {@code nanos}, a {@link System#nanoTime()} reading no earlier than the last. */
    public void observe(long count, long nanos) {
        if (lastCount >= 0 && count > lastCount) {
            fromNanos = Double.isNaN(fromNanos) ? at(from, count, nanos) : fromNanos;
            toNanos = Double.isNaN(toNanos) ? at(to, count, nanos) : toNanos;
        }
        if (lastCount < 0 || count >= lastCount) {
            lastCount = count;
            lastNanos = nanos;
        }
    }

    /** The marks' distance over the time between them, per second; empty until the count passed both. */
    public OptionalDouble perSecond() {
        if (Double.isNaN(fromNanos) || Double.isNaN(toNanos) || toNanos <= fromNanos) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of((to - from) / ((toNanos - fromNanos) / 1e9));
    }

    /** When the count passed {@code mark} between the last observation and this one (NaN if it did not). */
    private double at(long mark, long count, long nanos) {
        if (mark <= lastCount || mark > count) {
            return Double.NaN;
        }
        return lastNanos + (double) (mark - lastCount) / (count - lastCount) * (nanos - lastNanos);
    }
}
