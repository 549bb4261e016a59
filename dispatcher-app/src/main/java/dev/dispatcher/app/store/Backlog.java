package dev.dispatcher.app.store;

import java.time.Duration;

/**
 * Live rows of a queue and the age of the oldest.
 *
 * @param pending rows waiting for their first or next attempt
 * @param retryScheduled rows waiting for a scheduled retry
 * @param oldestAge age of the oldest live row, zero when there is none
 */
public record Backlog(long pending, long retryScheduled, Duration oldestAge) {

    /** All live rows. */
    public long total() {
        return pending + retryScheduled;
    }
}
