package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code relay-sweep}: the best cell of a sweep over batch size x publish concurrency x in-flight batches.
 *
 * @param common the fields every relay RESULT has
 * @param n rows each cell drained
 * @param batchSize the best cell's batch size
 * @param publishConcurrency its publish concurrency
 * @param maxInFlightBatches its in-flight batches
 * @param msgsPerS its rate
 * @param lost its rows never seen on Kafka
 * @param duplicates its rows seen more than once
 */
public record RelaySweep(@JsonUnwrapped Common common, int n, int batchSize, int publishConcurrency,
        int maxInFlightBatches, double msgsPerS, long lost, long duplicates) implements BenchResult {

    public static final String NAME = "relay-sweep";

    @Override
    public String name() {
        return NAME;
    }
}
