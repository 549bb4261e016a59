package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * RESULT {@code ingest-hostile}: the service jar beside hostile clients, each protected figure beside the same figure
 * without the attack, measured in the same run just before it. Answers by status are {@code "<status>:<count> ..."}
 * ({@code none}: closed without an answer; {@code open}: still open when the harness closed it).
 *
 * @param common the fields every relay RESULT has (the producers' messages: 64 keys, their payload's size)
 * @param producers closed-loop single-message producers of the rate windows
 * @param windowS each measured window
 * @param slow the slow-body phase
 * @param bomb the token-bomb phase
 * @param probes the encoded operator path and the password guesser
 * @param health the health-flood phase
 * @param accepted messages answered {@code 202} over the whole run
 * @param lost accepted messages never seen on the topic
 * @param duplicates records beyond the first of each id on the topic
 * @param targetsMissed the targets of issue 50 this run missed, comma-separated ({@code none}: every one held)
 * @param serviceAlive whether the service still ran at the end
 * @param serviceJvmOptions its JVM options
 */
public record IngestHostile(@JsonUnwrapped Common common, int producers, long windowS, @JsonUnwrapped SlowBodies slow,
        @JsonUnwrapped TokenBomb bomb, @JsonUnwrapped Probes probes, @JsonUnwrapped HealthFlood health,
        long accepted, long lost, long duplicates, String targetsMissed, boolean serviceAlive,
        String serviceJvmOptions) implements BenchResult {

    public static final String NAME = "ingest-hostile";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Slow bodies against the producers' rate.
     *
     * @param slowBodies connections kept open at once
     * @param bodyTimeoutMs the service's {@code dispatcher.ingest.body-timeout}
     * @param slowBaselineMsgsPerS the producers' rate without them: the mean of a window before and one after
     * @param slowBaselineRuns those two, {@code "<before> <after>"}
     * @param slowMsgsPerS with them
     * @param slowRatio the second over the first
     * @param slowBodyEnds how the slow bodies ended, by status
     * @param slowBodyEndMinMs the earliest end, from the head
     * @param slowBodyEndMaxMs the latest
     */
    public record SlowBodies(int slowBodies, long bodyTimeoutMs, double slowBaselineMsgsPerS,
            String slowBaselineRuns, double slowMsgsPerS, double slowRatio, String slowBodyEnds, long slowBodyEndMinMs,
            long slowBodyEndMaxMs) {
    }

    /**
     * Token bombs against one producer's latency.
     *
     * @param bombs bombs in flight at once
     * @param bombBytes each bomb's body
     * @param bombBaselineP99Ms one producer's p99 without them: the mean of a window before and one after
     * @param bombBaselineRuns those two, {@code "<before> <after>"}
     * @param bombP99Ms with them
     * @param bombAnswers how the bombs were answered, by status
     * @param bombAnswerMaxMs the slowest answer, from the head
     */
    public record TokenBomb(int bombs, int bombBytes, double bombBaselineP99Ms, String bombBaselineRuns,
            double bombP99Ms, String bombAnswers, long bombAnswerMaxMs) {
    }

    /**
     * Single requests of an attacker.
     *
     * @param encodedPathStatus {@code POST /%761/relay/pause} ({@code text/plain}, an operator's credentials)
     * @param encodedPathPaused whether the relay was paused after it
     * @param guesserAnswers the guesser's wrong passwords, by status
     * @param userStatus the user's right password from another address
     */
    public record Probes(int encodedPathStatus, boolean encodedPathPaused, String guesserAnswers, int userStatus) {
    }

    /**
     * A health flood against the producers' rate.
     *
     * @param healthClients callers of {@code /actuator/health}, from one address
     * @param healthBaselineMsgsPerS the producers' rate without them: the mean of a window before and one after
     * @param healthBaselineRuns those two, {@code "<before> <after>"}
     * @param healthMsgsPerS with them
     * @param healthRatio the second over the first
     * @param healthAnswers the health calls, by status
     */
    public record HealthFlood(int healthClients, double healthBaselineMsgsPerS, String healthBaselineRuns,
            double healthMsgsPerS, double healthRatio, String healthAnswers) {
    }
}
