package dev.dispatcher.load.blackbox;

import java.util.Locale;

/**
 * One minute of relay-sustained: what arrived on Kafka, the rows' own times, the outbox table and the service.
 *
 * @param minute 1-based
 * @param arrived written ids first seen on Kafka this minute
 * @param p99ConsumerMs commit to arrival on Kafka of those, 99th percentile (the harness's consumer)
 * @param rowsDelivered rows the database says were delivered this minute
 * @param p99RowsMs their {@code delivered_at - created_at}, 99th percentile
 * @param tableBytes {@code pg_table_size} of {@code outbox_message} at the minute's end
 * @param indexBytes {@code pg_indexes_size}
 * @param deadTuples {@code n_dead_tup}
 * @param liveTuples {@code n_live_tup}
 * @param deletedRows rows deleted this minute ({@code n_tup_del}'s growth): retention's work
 * @param claimMeanMs the claim statements' mean execution time this minute, null without figures
 * @param heapAfterGcBytes the service's heap after GC at the minute's end ({@link HeapSampler})
 * @param heapTroughBytes the lowest heap in use sampled this minute
 * @param connections the service's open connections at the minute's end
 */
record SustainedMinute(int minute, long arrived, double p99ConsumerMs, long rowsDelivered, double p99RowsMs,
        long tableBytes, long indexBytes, long deadTuples, long liveTuples, long deletedRows, Double claimMeanMs,
        long heapAfterGcBytes, long heapTroughBytes, int connections) {

    private static final double MB = 1024 * 1024;

    /** The minute's line. */
    String line() {
        return String.format(Locale.ROOT, "minute %d: delivered %.0f/s (%d on Kafka, %d by the rows), p99 commit to"
                + " delivered %.1f ms by the rows, %.1f ms to the consumer; table %.1f MB, indexes %.1f MB, live %d,"
                + " dead %d, deleted %d; claim %s; heap after GC %.1f MB (trough %.1f MB); connections %d", minute,
                arrived / 60.0, arrived, rowsDelivered, p99RowsMs, p99ConsumerMs, tableBytes / MB, indexBytes / MB,
                liveTuples, deadTuples, deletedRows,
                claimMeanMs == null ? "n/a" : String.format(Locale.ROOT, "%.3f ms mean", claimMeanMs),
                heapAfterGcBytes / MB, heapTroughBytes / MB, connections);
    }
}
