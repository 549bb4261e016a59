package dev.dispatcher.load.bench;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Where the slowest rows of a latency run spent their time, from each row's own timestamps: the writer's insert
 * and commit ({@code created_at} to the commit's return), commit to claim ({@code last_attempt_at}), claim to send
 * (the Kafka record's timestamp, set by the relay's producer) and send to arrival at the consumer; and whether the
 * slow rows come in bursts (rows committed within {@link #BURST_GAP_MICROS} of each other), and when each burst
 * started by the wall clock, to match against the service's GC log, PostgreSQL's checkpoints and the broker's log.
 *
 * <p>Why: the p99 of a 300/s run is its slowest 90 rows, and the relay's own timers show means. If the slowest rows
 * are slow in one segment, that segment is the tail's cause; if the writer's own one-row insert is slow for them
 * too, the whole machine stalled at that moment, which no relay setting shortens.
 */
public final class LatencyTail {

    /** Slow rows committed closer together than this belong to one burst. */
    static final long BURST_GAP_MICROS = 100_000;

    /** Most bursts shown by wall-clock time, so they can be matched against GC, database and broker logs. */
    static final int BURST_TIMES_SHOWN = 12;

    /** Wall-clock times in UTC (burst starts, the scale mode's measured phases), to match against other logs. */
    public static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** One delivered row's times, in epoch microseconds (the send time has Kafka's millisecond precision). */
    public record Row(long createdMicros, long committedMicros, long claimedMicros, long sentMicros, long arrivedMicros) {

        double insertMs() {
            return (committedMicros - createdMicros) / 1000.0;
        }

        double toClaimMs() {
            return (claimedMicros - committedMicros) / 1000.0;
        }

        double toSendMs() {
            return (sentMicros - claimedMicros) / 1000.0;
        }

        double toArrivalMs() {
            return (arrivedMicros - sentMicros) / 1000.0;
        }

        /** Commit to arrival, as the run's latency figures measure it. */
        double totalMs() {
            return (arrivedMicros - committedMicros) / 1000.0;
        }
    }

    private LatencyTail() {
    }

    /** One line: the segment medians of the slowest {@code share} of {@code rows} (all rows' in brackets), and bursts. */
    public static String describe(List<Row> rows, double share) {
        if (rows.isEmpty()) {
            return "latency tail: no rows";
        }
        List<Row> bySpeed = new ArrayList<>(rows);
        bySpeed.sort(Comparator.comparingDouble(Row::totalMs));
        List<Row> slowest = bySpeed.subList(Math.min(bySpeed.size() - 1, (int) (bySpeed.size() * (1 - share))),
                bySpeed.size());
        List<Long> starts = burstStarts(slowest);
        return String.format(Locale.ROOT, "latency tail, slowest %d rows (medians; all rows in brackets): insert and"
                        + " commit %.1f [%.1f] ms, commit to claim %.1f [%.1f], claim to send %.1f [%.1f], send to"
                        + " arrival %.1f [%.1f]; in %d bursts, %.2f s apart (median), starting at %s UTC",
                slowest.size(), median(slowest, Row::insertMs), median(rows, Row::insertMs),
                median(slowest, Row::toClaimMs), median(rows, Row::toClaimMs),
                median(slowest, Row::toSendMs), median(rows, Row::toSendMs),
                median(slowest, Row::toArrivalMs), median(rows, Row::toArrivalMs),
                starts.size(), medianGapSeconds(starts), clockTimes(starts));
    }

    /** The first {@link #BURST_TIMES_SHOWN} burst starts as {@code HH:mm:ss.SSS} (UTC), space-separated. */
    static String clockTimes(List<Long> startsMicros) {
        String shown = startsMicros.stream().limit(BURST_TIMES_SHOWN)
                .map(micros -> CLOCK.format(Instant.ofEpochSecond(0, micros * 1000)))
                .collect(Collectors.joining(" "));
        return startsMicros.size() > BURST_TIMES_SHOWN ? shown + " ..." : shown;
    }

    /** The commit time of the first row of each burst, in commit order. */
    static List<Long> burstStarts(List<Row> rows) {
        List<Long> commits = rows.stream().map(Row::committedMicros).sorted().toList();
        List<Long> starts = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (long commit : commits) {
            if (starts.isEmpty() || commit - previous >= BURST_GAP_MICROS) {
                starts.add(commit);
            }
            previous = commit;
        }
        return starts;
    }

    private static double medianGapSeconds(List<Long> starts) {
        if (starts.size() < 2) {
            return 0;
        }
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < starts.size(); i++) {
            gaps.add(starts.get(i) - starts.get(i - 1));
        }
        gaps.sort(null);
        return gaps.get(gaps.size() / 2) / 1e6;
    }

    private static double median(List<Row> rows, ToDoubleFunction<Row> segment) {
        double[] values = rows.stream().mapToDouble(segment).sorted().toArray();
        return values.length == 0 ? 0 : values[values.length / 2];
    }
}
