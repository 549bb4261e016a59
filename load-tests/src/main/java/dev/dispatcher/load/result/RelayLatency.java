package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code relay-latency}: rows committed at a fixed offered rate, commit-to-Kafka latency percentiles from the
 * consumer.
 *
 * @param common the fields every relay RESULT has
 * @param offeredPerS rows committed a second
 * @param n rows offered
 * @param p50Ms median latency
 * @param p95Ms 95th percentile
 * @param p99Ms 99th percentile
 * @param maxMs the slowest row
 * @param lost rows never seen on Kafka
 * @param duplicates records beyond the first of each id on the topic
 * @param serviceCompilingShare blackbox-latency: the service's compilation time over the measured phase
 * @param relay reference-latency: {@code reference}
 * @param referenceLoops reference-latency: the reference relay's loops
 * @param delivered the same rows' latency by their own timestamps, {@code delivered_at - created_at}
 * @param pooler blackbox-latency with {@code --pooler}: the pooler the service ran behind ({@code pgbouncer
 *     --version}'s first line)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RelayLatency(@JsonUnwrapped Common common, double offeredPerS, int n, double p50Ms, double p95Ms,
        double p99Ms, double maxMs, long lost, long duplicates, Double serviceCompilingShare, String relay,
        Integer referenceLoops, @JsonUnwrapped Delivered delivered, String pooler) implements BenchResult {

    public static final String NAME = "relay-latency";

    @Override
    public String name() {
        return NAME;
    }

    /** This result with the service's compilation share of the measured phase. */
    public RelayLatency withServiceCompilingShare(double share) {
        return new RelayLatency(common, offeredPerS, n, p50Ms, p95Ms, p99Ms, maxMs, lost, duplicates, share, relay,
                referenceLoops, delivered, pooler);
    }

    /** This result as the reference relay's, with its loops. */
    public RelayLatency ofReference(int loops) {
        return new RelayLatency(common, offeredPerS, n, p50Ms, p95Ms, p99Ms, maxMs, lost, duplicates,
                serviceCompilingShare, "reference", loops, delivered, pooler);
    }

    /** This result as a service's behind {@code pooler} ({@code pgbouncer --version}'s first line). */
    public RelayLatency behind(String pooler) {
        return new RelayLatency(common, offeredPerS, n, p50Ms, p95Ms, p99Ms, maxMs, lost, duplicates,
                serviceCompilingShare, relay, referenceLoops, delivered, pooler);
    }

    /**
     * The measured rows' latency as the database recorded it: {@code delivered_at - created_at} (the insert's
     * transaction start to the Deliver write's), read from the outbox table after the run, beside the consumer-side
     * figures (the writer's commit to the record's arrival at the harness's consumer).
     *
     * @param deliveredN measured rows with a {@code delivered_at}
     * @param deliveredP50Ms median
     * @param deliveredP95Ms 95th percentile
     * @param deliveredP99Ms 99th percentile
     * @param deliveredMaxMs the slowest row
     */
    public record Delivered(long deliveredN, double deliveredP50Ms, double deliveredP95Ms, double deliveredP99Ms,
            double deliveredMaxMs) {
    }
}
