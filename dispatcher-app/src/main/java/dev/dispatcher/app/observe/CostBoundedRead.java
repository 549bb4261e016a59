package dev.dispatcher.app.observe;

import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * A read for gauges whose cost grows with the data, run no more often than its own cost allows: after a read that took
 * {@code d}, the next one runs only once {@code d x costRatio} has passed since it started; a poll before that reuses
 * the last value. Cheap reads therefore run on every poll, and an expensive one, such as counting a backlog of hundreds
 * of thousands of live rows while the database is busiest, keeps to a bounded share of one backend: {@code 1 /
 * costRatio}.
 *
 * <p>Not thread-safe: one poller at a time ({@link PeriodicPass} runs one pass at a time).
 *
 * @param <T> what the read returns
 */
public final class CostBoundedRead<T> {

    /** Default share of wall time a read may take: 1/50, 2 %. */
    public static final int DEFAULT_COST_RATIO = 50;

    private final Supplier<Mono<T>> read;
    private final int costRatio;
    private final LongSupplier nanoTime;
    private T last;
    private long lastStart;
    private long lastCost;

    public CostBoundedRead(Supplier<Mono<T>> read, int costRatio, LongSupplier nanoTime) {
        if (costRatio < 1) {
            throw new IllegalArgumentException("costRatio must be at least 1, but was " + costRatio);
        }
        this.read = Objects.requireNonNull(read, "read");
        this.costRatio = costRatio;
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    public CostBoundedRead(Supplier<Mono<T>> read) {
        this(read, DEFAULT_COST_RATIO, System::nanoTime);
    }

    /** The read's value: a new one when its cost allows, else the last one. */
    public Mono<T> get() {
        return Mono.defer(() -> {
            long start = nanoTime.getAsLong();
            if (last != null && start - lastStart < lastCost * costRatio) {
                return Mono.just(last);
            }
            return read.get().doOnNext(value -> {
                last = value;
                lastStart = start;
                lastCost = nanoTime.getAsLong() - start;
            });
        });
    }
}
