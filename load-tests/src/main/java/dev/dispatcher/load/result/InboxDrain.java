package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code inbox-drain}: an inbox consumer's rate at its handler's pace, against the receiver's own ceiling in
 * the same run; effects counted where they happen.
 *
 * @param pgFsync whether PostgreSQL committed durably
 * @param brokers Kafka brokers
 * @param ordering the consumer's ordering
 * @param keys keys of the produced records (always 64)
 * @param payloadBytes each payload's size
 * @param warmupN records of the untimed warm-up drain
 * @param handler {@code webhook} or {@code sql}
 * @param n records timed
 * @param msgsPerS their rate
 * @param receiverCeilingPerS the receiver's (or PostgreSQL's) ceiling at the same concurrency
 * @param ratioToCeiling the one over the other
 * @param lost ids without an effect
 * @param duplicates ids with more than one effect
 * @param concurrency the consumer's concurrency
 * @param receiverDelayMs webhook: the receiver's delay per call
 * @param failEvery webhook: one 503 for every this-many-th id (0: never)
 * @param failingKey whether {@code key-0} failed on every record
 * @param failing with a failing key: the reference drain's figures
 * @param poisonKey whether a record with a NUL-led key went first
 * @param poison with a poison key: what became of it and the partitions
 * @param serviceJar blackbox-inbox: {@code true}, the consumer ran in the service jar's own JVM
 * @param fresh blackbox-inbox: the service's JVM launched on a standing backlog ({@link FreshStart}, counted by
 *     first answers at the receiver)
 * @param freshRatioToCeiling blackbox-inbox: the fresh drain's steady rate over the receiver's ceiling
 * @param middleHalfMsgsPerS inbox: the rate between the timed records' 25% and 75% marks (each interpolated between
 *     two counts of the effects): the drain without the service's start in the harness's JVM and without the last
 *     records, handled after intake had stored everything
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InboxDrain(boolean pgFsync, int brokers, String ordering, int keys, int payloadBytes, long warmupN,
        String handler, int n, double msgsPerS, double receiverCeilingPerS, double ratioToCeiling, long lost,
        long duplicates, int concurrency, Integer receiverDelayMs, Integer failEvery, boolean failingKey,
        @JsonUnwrapped FailingKey failing, boolean poisonKey, @JsonUnwrapped Poison poison, Boolean serviceJar,
        @JsonUnwrapped FreshStart fresh, Double freshRatioToCeiling, Double middleHalfMsgsPerS) implements BenchResult {

    public static final String NAME = "inbox-drain";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The drain beside a failing key against the same drain without it.
     *
     * @param measured which records were timed
     * @param referenceMsgsPerS the drain without the failing key
     * @param ratioToUnfailed the measured rate over the reference's
     */
    public record FailingKey(String measured, double referenceMsgsPerS, double ratioToUnfailed) {
    }

    /**
     * What became of the record whose key starts with NUL, and of the partitions.
     *
     * @param handled ordinary records handled, of N
     * @param poisonState its inbox status, or {@code absent}
     * @param poisonPartition its source partition as stored (-1 when absent)
     * @param poisonOffset its source offset as stored (-1 when absent)
     * @param poisonHandled whether the handler saw it
     * @param partitionsBehind partitions whose committed offset is short of their end
     */
    public record Poison(long handled, String poisonState, int poisonPartition, long poisonOffset,
            boolean poisonHandled, int partitionsBehind) {
    }
}
