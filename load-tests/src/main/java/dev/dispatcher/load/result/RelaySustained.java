package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code relay-sustained}: the service jar under a fixed offered rate for a fixed time with retention running,
 * and whether the table, the claim and the heap stayed flat after the first retention pass. "First" figures are the
 * reference minute's (the minute after the first one in which retention deleted rows; minute 1 when it never did),
 * "last" ones the last minute's.
 *
 * @param common the fields every relay RESULT has
 * @param minutes minutes of load
 * @param offeredPerS rows committed a second by the writers
 * @param deliveredPerS distinct ids confirmed on Kafka a second, over the load's minutes
 * @param p99Ms commit to confirmed on Kafka, 99th percentile over the rows that arrived after the first minute (the
 *     service's warm-up; over every row in a one-minute run), by the harness's consumer
 * @param retentionS the service's {@code dispatcher.retention.delivered}
 * @param deletedRows rows deleted from {@code outbox_message} over the run ({@code n_tup_del}, read after the service
 *     stopped): retention's work
 * @param referenceMinute the minute "first" figures are taken from
 * @param tableBytesFirst {@code pg_table_size} of {@code outbox_message} at the reference minute
 * @param tableBytesLast at the last minute
 * @param indexBytesFirst {@code pg_indexes_size} at the reference minute
 * @param indexBytesLast at the last minute
 * @param claimMeanMsFirst the claim statements' mean execution time over the reference minute ({@code
 *     pg_stat_statements}); null when it is not installed
 * @param claimMeanMsLast over the last minute
 * @param heapAfterGcBytesFirst the service's heap after GC at the reference minute
 * @param heapAfterGcBytesLast at the last minute (0 while no collection has reclaimed the old generation, which a
 *     short run may not see)
 * @param heapTroughBytesLast the lowest heap in use sampled over the last minute
 * @param lost written ids never seen on Kafka
 * @param duplicates records beyond the first of each written id
 * @param flat whether table and index size, claim mean and heap stayed within their tolerances; null when the run
 *     was too short to judge
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RelaySustained(@JsonUnwrapped Common common, int minutes, double offeredPerS, double deliveredPerS,
        double p99Ms, long retentionS, long deletedRows, int referenceMinute, long tableBytesFirst, long tableBytesLast,
        long indexBytesFirst, long indexBytesLast, Double claimMeanMsFirst, Double claimMeanMsLast,
        long heapAfterGcBytesFirst, long heapAfterGcBytesLast, long heapTroughBytesLast, long lost, long duplicates,
        Boolean flat)
        implements BenchResult {

    public static final String NAME = "relay-sustained";

    @Override
    public String name() {
        return NAME;
    }
}
