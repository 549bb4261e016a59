package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyTailTest {

    /** A row committed at {@code atMs} whose segments took the given milliseconds. */
    private static LatencyTail.Row row(long atMs, long insertMs, long toClaimMs, long toSendMs, long toArrivalMs) {
        long committed = atMs * 1000;
        long claimed = committed + toClaimMs * 1000;
        long sent = claimed + toSendMs * 1000;
        return new LatencyTail.Row(committed - insertMs * 1000, committed, claimed, sent, sent + toArrivalMs * 1000);
    }

    @Test
    void theSlowestRowsSegmentsAreReportedBesideAllRows() {
        List<LatencyTail.Row> rows = new ArrayList<>();
        for (int i = 0; i < 99; i++) {
            rows.add(row(i * 10L, 1, 2, 0, 1));
        }
        rows.add(row(2_000, 1, 2, 40, 1)); // the one slow row: its send waited

        String line = LatencyTail.describe(rows, 0.01);

        assertThat(line).contains("slowest 1 rows")
                .contains("insert and commit 1.0 [1.0] ms")
                .contains("commit to claim 2.0 [2.0]")
                .contains("claim to send 40.0 [0.0]")
                .contains("send to arrival 1.0 [1.0]")
                .contains("in 1 bursts");
    }

    @Test
    void slowRowsCommittedCloseTogetherAreOneBurst() {
        List<LatencyTail.Row> slow = List.of(
                row(1_000, 9, 9, 9, 9), row(1_050, 9, 9, 9, 9), // one burst
                row(2_500, 9, 9, 9, 9), row(2_560, 9, 9, 9, 9), row(2_610, 9, 9, 9, 9), // a second, 1.5 s later
                row(4_000, 9, 9, 9, 9)); // a third, 1.5 s later

        assertThat(LatencyTail.burstStarts(slow)).containsExactly(1_000_000L, 2_500_000L, 4_000_000L);
        assertThat(LatencyTail.describe(slow, 1.0))
                .contains("in 3 bursts, 1.50 s apart (median), starting at 00:00:01.000 00:00:02.500 00:00:04.000 UTC");
    }

    @Test
    void onlyTheFirstBurstTimesAreShown() {
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < LatencyTail.BURST_TIMES_SHOWN + 3; i++) {
            starts.add(i * 1_000_000L);
        }

        String times = LatencyTail.clockTimes(starts);

        assertThat(times).startsWith("00:00:00.000 00:00:01.000").endsWith("00:00:11.000 ...");
    }

    @Test
    void aRunWithoutRowsSaysSo() {
        assertThat(LatencyTail.describe(List.of(), 0.01)).isEqualTo("latency tail: no rows");
    }
}
