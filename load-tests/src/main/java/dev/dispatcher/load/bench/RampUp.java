package dev.dispatcher.load.bench;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * How fast a freshly started service reached its speed, from a per-second count of its work (messages delivered,
 * requests answered) since the moment its JVM was launched: second {@code i} holds what completed in {@code [i,
 * i + 1)} seconds after the launch.
 *
 * <p>The definitions the RESULT's {@code time_to_80pct_s} rests on:
 * <ul>
 *   <li>the run's <em>active span</em> is from the first second with any work to the last one;</li>
 *   <li>the <em>steady rate</em> is the mean count of the seconds in the active span's last half, without its last
 *       second (a drain ends, and a load stops, within it, so it is partial);</li>
 *   <li>{@code time_to_80pct_s} is the end of the first second, counted from the launch, whose count reaches 0.8 of
 *       the steady rate. It includes the JVM's and Spring's start and the time until the load arrived: everything a
 *       freshly deployed instance makes its users wait.</li>
 * </ul>
 * A span of one or two seconds has no last half to speak of: its steady rate is its mean.
 *
 * @param timeTo80pctS seconds from the launch to the end of the first second at 0.8 of the steady rate or above
 * @param steadyPerS the steady rate, per second
 * @param firstWorkS the start of the first second with any work, from the launch
 * @param perSecond the counts, from the launch
 */
public record RampUp(int timeTo80pctS, double steadyPerS, int firstWorkS, long[] perSecond) {

    /** The share of the steady rate that counts as up to speed. */
    public static final double SHARE = 0.8;

    /**
     * The ramp-up of {@code perSecond} (second 0 starting at the launch).
     *
     * @throws IllegalArgumentException when no second has any work
     */
    public static RampUp of(long[] perSecond) {
        int first = 0;
        while (first < perSecond.length && perSecond[first] == 0) {
            first++;
        }
        int last = perSecond.length - 1;
        while (last >= 0 && perSecond[last] == 0) {
            last--;
        }
        if (first > last) {
            throw new IllegalArgumentException("no work in any of " + perSecond.length + " seconds");
        }
        int span = last - first + 1;
        int from = span < 3 ? first : first + span / 2;
        int to = span < 3 ? last + 1 : last; // without the partial last second
        double steady = Arrays.stream(perSecond, from, to).average().orElseThrow();
        int reached = first;
        while (perSecond[reached] < SHARE * steady) {
            reached++;
        }
        return new RampUp(reached + 1, steady, first, perSecond.clone());
    }

    /** The counts as {@code "0:0 1:0 ... 7:1520 8:9431"}, for the run's output. */
    public String eachSecond() {
        StringJoiner joined = new StringJoiner(" ");
        for (int i = 0; i < perSecond.length; i++) {
            joined.add(i + ":" + perSecond[i]);
        }
        return joined.toString();
    }
}
