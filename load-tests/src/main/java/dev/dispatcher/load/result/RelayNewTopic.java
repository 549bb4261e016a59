package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;

/**
 * RESULT {@code relay-new-topic}: the service jar delivered rows written for topics that did not exist yet, on a
 * broker that creates topics on first use.
 *
 * @param common the fields every relay RESULT has
 * @param n rows a round, each round on a topic of its own
 * @param rounds rounds
 * @param allDeliveredS the slowest round: seconds from the rows being written to the last of them delivered (the
 *     rows' own {@code created_at} and {@code delivered_at})
 * @param roundsS each round's seconds, in order
 * @param referenceS the slowest reference: a round's rows again, right after, for a topic created beforehand
 * @param referenceRoundsS each round's reference seconds, in order
 * @param deadLettered rows dead-lettered instead, over all rounds
 * @param lost rows never seen on Kafka, over all rounds
 * @param duplicates rows seen more than once, over all rounds
 */
public record RelayNewTopic(@JsonUnwrapped Common common, int n, int rounds, double allDeliveredS,
        List<Double> roundsS, double referenceS, List<Double> referenceRoundsS, long deadLettered, long lost,
        long duplicates) implements BenchResult {

    public static final String NAME = "relay-new-topic";

    @Override
    public String name() {
        return NAME;
    }
}
