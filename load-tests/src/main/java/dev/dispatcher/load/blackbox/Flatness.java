package dev.dispatcher.load.blackbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * relay-sustained's verdict: whether the outbox's size (table and indexes), the claim's mean time and the service's
 * heap after GC stayed flat once retention runs. The reference is the minute after the first one in which rows were
 * deleted (by then the table has held a full retention window once); the last minute is compared with it, each
 * figure within its tolerance: size {@value #SIZE_TOLERANCE}x, claim {@value #CLAIM_TOLERANCE}x (a mean of a few
 * milliseconds moves with the machine's other work), heap {@value #HEAP_TOLERANCE}x. No verdict ({@code flat} null)
 * when retention never deleted or no minute follows the reference.
 */
final class Flatness {

    static final double SIZE_TOLERANCE = 1.2;
    static final double CLAIM_TOLERANCE = 1.5;
    static final double HEAP_TOLERANCE = 1.25;

    private Flatness() {
    }

    /**
     * The verdict.
     *
     * @param referenceMinute the minute compared with the last (1 without a retention pass)
     * @param flat whether every figure stayed within its tolerance; null when there was nothing to judge
     * @param text what was compared, for the console
     */
    record Verdict(int referenceMinute, Boolean flat, String text) {
    }

    static Verdict judge(List<SustainedMinute> minutes) {
        int firstDeleting = minutes.stream().filter(m -> m.deletedRows() > 0).mapToInt(SustainedMinute::minute)
                .findFirst().orElse(0);
        if (firstDeleting == 0) {
            return new Verdict(1, null, "no verdict: retention deleted no rows in " + minutes.size() + " minute(s)");
        }
        int reference = firstDeleting + 1;
        SustainedMinute last = minutes.getLast();
        if (last.minute() <= reference) {
            return new Verdict(Math.min(reference, last.minute()), null, "no verdict: retention first deleted rows in"
                    + " minute " + firstDeleting + ", and no minute follows the reference minute " + reference);
        }
        SustainedMinute ref = minutes.get(reference - 1);
        List<String> growing = new ArrayList<>();
        List<String> compared = new ArrayList<>();
        check("table and indexes", ref.tableBytes() + ref.indexBytes(), last.tableBytes() + last.indexBytes(),
                SIZE_TOLERANCE, "%.1f MB", 1024 * 1024, compared, growing);
        if (ref.claimMeanMs() != null && last.claimMeanMs() != null) {
            check("claim mean", ref.claimMeanMs(), last.claimMeanMs(), CLAIM_TOLERANCE, "%.3f ms", 1, compared,
                    growing);
        }
        if (ref.heapAfterGcBytes() > 0) {
            check("heap after GC", ref.heapAfterGcBytes(), last.heapAfterGcBytes(), HEAP_TOLERANCE, "%.1f MB",
                    1024 * 1024, compared, growing);
        }
        String against = "minute " + last.minute() + " against minute " + reference + " (retention first deleted in"
                + " minute " + firstDeleting + "): " + String.join(", ", compared);
        return growing.isEmpty() ? new Verdict(reference, true, "FLAT: " + against)
                : new Verdict(reference, false, "GROWING (" + String.join(", ", growing) + "): " + against);
    }

    private static void check(String what, double reference, double last, double tolerance, String format,
            double unit, List<String> compared, List<String> growing) {
        String figures = String.format(Locale.ROOT, "%s " + format + " -> " + format + " (x%.2f, within x%.2f)", what,
                reference / unit, last / unit, reference == 0 ? 0 : last / reference, tolerance);
        compared.add(figures);
        if (last > reference * tolerance) {
            growing.add(what);
        }
    }
}
