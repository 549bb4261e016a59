package dev.dispatcher.load.blackbox;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * How a hostile phase's requests ended: a count per HTTP status ({@link #NO_ANSWER} for a connection that closed or
 * failed without one, {@link #STILL_OPEN} for one the harness closed itself) and the fastest and slowest end, in ms
 * from the request's start. Thread-safe: the attackers' threads add, the harness's main thread reads.
 */
final class StatusTally {

    /** The connection closed, or failed, before a status line arrived. */
    static final int NO_ANSWER = -1;
    /** Still unanswered when the phase ended, closed by the harness. */
    static final int STILL_OPEN = 0;

    private final Map<Integer, Long> statuses = new TreeMap<>();
    private long minMs = Long.MAX_VALUE;
    private long maxMs = -1;

    /** Counts an end with {@code status} after {@code ms}; a {@link #STILL_OPEN} end does not move the times. */
    synchronized void add(int status, long ms) {
        statuses.merge(status, 1L, Long::sum);
        if (status != STILL_OPEN) {
            minMs = Math.min(minMs, ms);
            maxMs = Math.max(maxMs, ms);
        }
    }

    /** Ends counted. */
    synchronized long total() {
        return statuses.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The fastest end with an answer or a close, -1 when none. */
    synchronized long minMs() {
        return maxMs < 0 ? -1 : minMs;
    }

    /** The slowest end with an answer or a close, -1 when none. */
    synchronized long maxMs() {
        return maxMs;
    }

    /**
     * {@code "408:8 413:2"}: status and count, by status, space-separated; {@code none} for a connection closed
     * without an answer and {@code open} for one still open at the end; {@code "-"} when nothing ended.
     */
    synchronized String text() {
        if (statuses.isEmpty()) {
            return "-";
        }
        return statuses.entrySet().stream().map(e -> label(e.getKey()) + ":" + e.getValue())
                .collect(Collectors.joining(" "));
    }

    private static String label(int status) {
        return switch (status) {
            case NO_ANSWER -> "none";
            case STILL_OPEN -> "open";
            default -> Integer.toString(status);
        };
    }
}
