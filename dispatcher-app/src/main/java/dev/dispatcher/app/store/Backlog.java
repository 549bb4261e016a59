package dev.dispatcher.app.store;

import io.r2dbc.spi.Readable;
import java.time.Duration;

/**
 * Live rows of a queue and the age of the oldest.
 *
 * @param pending rows waiting for their first or next attempt
 * @param retryScheduled rows waiting for a scheduled retry
 * @param oldestAge age of the oldest live row, zero when there is none
 */
public record Backlog(long pending, long retryScheduled, Duration oldestAge) {

    /** No live rows. */
    public static final Backlog EMPTY = new Backlog(0, 0, Duration.ZERO);

    /** Reads a row of the queues' BACKLOG statements ({@code pending}, {@code retry_scheduled}, {@code oldest_age_ms}). */
    public static Backlog of(Readable row) {
        return new Backlog(row.get("pending", Long.class), row.get("retry_scheduled", Long.class),
                Duration.ofMillis(row.get("oldest_age_ms", Long.class)));
    }

    /** All live rows. */
    public long total() {
        return pending + retryScheduled;
    }
}
