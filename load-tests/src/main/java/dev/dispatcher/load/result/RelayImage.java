package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;

/**
 * RESULT {@code relay-image}: the service's container image against its exec jar, each started, warmed up and
 * draining N rows in turns, on the same servers in the same run.
 *
 * @param common the fields every relay RESULT has (the warm-up's over every service of the run)
 * @param n rows each drain delivered
 * @param rounds jar-then-image pairs
 * @param msgsPerS the image's rate: the median of its drains' rows a second, first claim to last delivery
 * @param jarMsgsPerS the jar's, the same way
 * @param ratioToJar the median of each round's image rate over the jar's of the same round
 * @param startupS the image's seconds from {@code podman run} to {@code /actuator/health} UP, the median
 * @param jarStartupS the jar's from {@code java -jar}, the median
 * @param imageRounds each image drain's rate, in order
 * @param jarRounds each jar drain's rate, in order
 * @param imageStartupRoundsS each image start's seconds, in order
 * @param jarStartupRoundsS each jar start's seconds, in order
 * @param imageExits each image's exit status on {@code podman stop} (143: the JVM exited on SIGTERM)
 * @param jarExits each jar's on SIGTERM
 * @param image the image's tag
 * @param imageBytes its uncompressed size, as podman reports it
 * @param imageBuildS seconds the run took to build it (base cached), absent when {@code --image} named one
 * @param serviceJvmOptions both services' JVM options (the image's in {@code JAVA_TOOL_OPTIONS})
 * @param lost rows never seen on Kafka, over every drain
 * @param duplicates rows seen more than once, over every drain
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RelayImage(@JsonUnwrapped Common common, int n, int rounds, double msgsPerS, double jarMsgsPerS,
        double ratioToJar, double startupS, double jarStartupS, List<Double> imageRounds, List<Double> jarRounds,
        List<Double> imageStartupRoundsS, List<Double> jarStartupRoundsS, List<Integer> imageExits,
        List<Integer> jarExits, String image, Long imageBytes, Double imageBuildS, String serviceJvmOptions,
        long lost, long duplicates) implements BenchResult {

    public static final String NAME = "relay-image";

    @Override
    public String name() {
        return NAME;
    }
}
