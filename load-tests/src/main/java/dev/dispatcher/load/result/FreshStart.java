package dev.dispatcher.load.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A fresh service's first drain: its JVM launched on a standing backlog, how soon it was up and how soon it drained
 * at 0.8 of its steady rate ({@code dev.dispatcher.load.bench.RampUp} defines both); absent when no such drain ran.
 *
 * @param freshN rows waiting when the service's JVM was launched
 * @param startupS seconds from the launch until {@code /actuator/health} answered {@code UP}
 * @param startupCpuS CPU seconds the service's process used until then (on a shared machine the wall time also
 *     counts the other processes' turns)
 * @param timeTo80pctS seconds from the launch until the deliveries of one second first reached 0.8 of the steady rate
 * @param freshMsgsPerS the fresh drain's rows a second, from its first claim to its last delivery
 * @param freshSteadyMsgsPerS its steady rate: the mean of the seconds in the last half of its deliveries
 * @param serviceJvmOptions the service's JVM options (an AOT cache, when it ran with one)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FreshStart(Integer freshN, Double startupS, Double startupCpuS, @JsonProperty("time_to_80pct_s") Integer timeTo80pctS,
        Double freshMsgsPerS, Double freshSteadyMsgsPerS, String serviceJvmOptions) {

    /** No fresh drain ran. */
    public static final FreshStart NONE = new FreshStart(null, null, null, null, null, null, null);
}
