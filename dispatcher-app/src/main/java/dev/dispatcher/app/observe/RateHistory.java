package dev.dispatcher.app.observe;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The last minutes of this instance's relay, one sample per run-summary interval, for the console's overview
 * chart ({@code GET /v1/rates}). Rates are this instance's (its counters); backlog and age are the database's.
 *
 * <p>Written by the run summary's poll, read by HTTP requests: the samples are an immutable list swapped
 * atomically, so readers never wait and never see a half-written sample. Bounded by {@code capacity}.
 */
public final class RateHistory {

    /** One interval: rates over it and the backlog at its end. */
    public record Sample(Instant at, double publishedPerSecond, double deadLetteredPerSecond, long backlog,
            long oldestLiveAgeMs) {
    }

    private final int capacity;
    private final Duration interval;
    private final AtomicReference<List<Sample>> samples = new AtomicReference<>(List.of());

    public RateHistory(Duration interval, Duration span) {
        if (interval.isNegative() || interval.isZero() || span.compareTo(interval) < 0) {
            throw new IllegalArgumentException("the history needs a positive interval within its span, but was "
                    + interval + " over " + span);
        }
        this.interval = interval;
        this.capacity = (int) (span.toMillis() / interval.toMillis());
    }

    /** Appends {@code sample}, dropping the oldest beyond the span. */
    public void record(Sample sample) {
        samples.updateAndGet(current -> {
            List<Sample> next = new ArrayList<>(Math.min(current.size() + 1, capacity));
            next.addAll(current.size() < capacity ? current : current.subList(current.size() - capacity + 1,
                    current.size()));
            next.add(sample);
            return List.copyOf(next);
        });
    }

    /** Oldest first. */
    public List<Sample> samples() {
        return samples.get();
    }

    public Duration interval() {
        return interval;
    }
}
