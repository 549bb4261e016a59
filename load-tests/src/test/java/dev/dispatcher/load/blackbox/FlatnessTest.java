package dev.dispatcher.load.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlatnessTest {

    private static final long MB = 1024 * 1024;

    /** Minutes 1..n: retention deletes from minute {@code deletingFrom}, the figures as given per minute. */
    private static List<SustainedMinute> minutes(int deletingFrom, long[] tableMb, double[] claimMs, long[] heapMb) {
        List<SustainedMinute> minutes = new ArrayList<>();
        for (int i = 0; i < tableMb.length; i++) {
            int minute = i + 1;
            minutes.add(new SustainedMinute(minute, 300_000, 20, 300_000, 15, tableMb[i] * MB, 0, 1000, 300_000,
                    deletingFrom > 0 && minute >= deletingFrom ? 300_000 : 0, claimMs[i], heapMb[i] * MB,
                    heapMb[i] * MB, 10));
        }
        return minutes;
    }

    @Test
    void figuresWithinTheirTolerancesOfTheMinuteAfterTheFirstDeletingOneAreFlat() {
        Flatness.Verdict verdict = Flatness.judge(minutes(2, new long[] {300, 550, 600, 640, 700},
                new double[] {5.0, 2.0, 1.0, 1.2, 1.4}, new long[] {40, 41, 42, 44, 50}));

        assertThat(verdict.referenceMinute()).isEqualTo(3);
        assertThat(verdict.flat()).as(verdict.text()).isTrue();
        assertThat(verdict.text()).startsWith("FLAT: minute 5 against minute 3");
    }

    @Test
    void aTableGrowingPastItsToleranceIsNamed() {
        Flatness.Verdict verdict = Flatness.judge(minutes(2, new long[] {300, 550, 600, 700, 800},
                new double[] {1, 1, 1, 1, 1}, new long[] {40, 40, 40, 40, 40}));

        assertThat(verdict.flat()).isFalse();
        assertThat(verdict.text()).startsWith("GROWING (table and indexes): ")
                .contains("table and indexes 600.0 MB -> 800.0 MB (x1.33, within x1.20)");
    }

    @Test
    void aClaimOrHeapGrowingPastItsToleranceIsNamed() {
        Flatness.Verdict verdict = Flatness.judge(minutes(1, new long[] {300, 300, 300},
                new double[] {1, 1.0, 1.6}, new long[] {40, 40, 51}));

        assertThat(verdict.referenceMinute()).isEqualTo(2);
        assertThat(verdict.flat()).isFalse();
        assertThat(verdict.text()).startsWith("GROWING (claim mean, heap after GC): ");
    }

    @Test
    void withoutClaimFiguresTheOthersAreJudged() {
        Flatness.Verdict verdict = Flatness.judge(minutes(1, new long[] {300, 300, 310},
                new double[] {Double.NaN, Double.NaN, Double.NaN}, new long[] {40, 40, 40}).stream()
                .map(m -> new SustainedMinute(m.minute(), m.arrived(), m.p99ConsumerMs(), m.rowsDelivered(),
                        m.p99RowsMs(), m.tableBytes(), m.indexBytes(), m.deadTuples(), m.liveTuples(),
                        m.deletedRows(), null, m.heapAfterGcBytes(), m.heapTroughBytes(), m.connections()))
                .toList());

        assertThat(verdict.flat()).isTrue();
        assertThat(verdict.text()).doesNotContain("claim");
    }

    @Test
    void noVerdictWithoutARetentionPassOrWithoutAMinuteAfterTheReference() {
        Flatness.Verdict none = Flatness.judge(minutes(0, new long[] {300, 600}, new double[] {1, 1},
                new long[] {40, 40}));
        Flatness.Verdict tooShort = Flatness.judge(minutes(2, new long[] {300, 600, 600}, new double[] {1, 1, 1},
                new long[] {40, 40, 40}));

        assertThat(none.flat()).isNull();
        assertThat(none.referenceMinute()).isEqualTo(1);
        assertThat(none.text()).isEqualTo("no verdict: retention deleted no rows in 2 minute(s)");
        assertThat(tooShort.flat()).isNull();
        assertThat(tooShort.referenceMinute()).isEqualTo(3);
        assertThat(tooShort.text()).contains("no minute follows the reference minute 3");
    }
}
