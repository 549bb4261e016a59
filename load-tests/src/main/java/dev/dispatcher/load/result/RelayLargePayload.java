package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code relay-large-payload}: the service jar in a small heap drained large payloads.
 *
 * @param common the fields every relay RESULT has
 * @param n rows drained
 * @param msgsPerS their rate
 * @param mbPerS payload megabytes a second
 * @param lost rows never seen on Kafka
 * @param duplicates rows seen more than once
 * @param oomLines {@code OutOfMemoryError} lines in the service's log
 * @param serviceAlive whether the service still ran
 * @param peakHeapUsedBytes the highest heap in use sampled
 * @param serviceJvmOptions its JVM options
 */
public record RelayLargePayload(@JsonUnwrapped Common common, int n, double msgsPerS, double mbPerS, long lost,
        long duplicates, long oomLines, boolean serviceAlive, long peakHeapUsedBytes, String serviceJvmOptions)
        implements BenchResult {

    public static final String NAME = "relay-large-payload";

    @Override
    public String name() {
        return NAME;
    }
}
