package dev.dispatcher.load.bench;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Figures read from a service's Prometheus text exposition ({@code /actuator/prometheus}). */
public final class PrometheusText {

    private static final Pattern COMPILATION =
            Pattern.compile("(?m)^jvm_compilation_time_ms_total(?:\\{[^}]*})? ([0-9.eE+]+)$");
    private static final Pattern LIVE_DATA =
            Pattern.compile("(?m)^jvm_gc_live_data_size_bytes(?:\\{[^}]*})? ([0-9.eE+]+)$");
    /** The outbox's Applied Deliver counter, one line per durable status. */
    private static final Pattern APPLIED_DELIVERS = Pattern.compile(
            "^dispatcher_transition_attempts_total\\{(?=[^}]*queue=\"outbox\")(?=[^}]*transition=\"deliver\")"
                    + "(?=[^}]*outcome=\"applied\")[^}]*}\\s+(\\S+)$", Pattern.MULTILINE);

    private PrometheusText() {
    }

    /**
     * {@code jvm_compilation_time_ms_total}: the service JVM's compilation time so far.
     *
     * @throws IOException when the exposition does not have it
     */
    public static long compilationMillis(String exposition) throws IOException {
        Matcher m = COMPILATION.matcher(exposition);
        if (!m.find()) {
            throw new IOException("no jvm_compilation_time_ms_total in the service's Prometheus output");
        }
        return (long) Double.parseDouble(m.group(1));
    }

    /** The outbox's Applied Deliver transitions, summed over every durable status (0 before the first). */
    public static long appliedDelivers(String exposition) {
        long sum = 0;
        Matcher m = APPLIED_DELIVERS.matcher(exposition);
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }

    /** The JVM's heap in use: {@code jvm_memory_used_bytes} of every heap pool, summed. */
    public static long heapUsedBytes(String exposition) {
        long heap = 0;
        for (String line : exposition.split("\n")) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                heap += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return heap;
    }

    /**
     * {@code jvm_gc_live_data_size_bytes}: Micrometer's size of the long-lived heap pool after the last collection
     * that shrank it (or after a major one); 0 before the first such collection or when absent.
     */
    public static long liveDataBytes(String exposition) {
        Matcher m = LIVE_DATA.matcher(exposition);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    /**
     * A timer's recordings over all its series: {@code count}, {@code sumSeconds} and the highest {@code
     * maxSeconds} (Micrometer's decaying maximum).
     */
    public record Timer(long count, double sumSeconds, double maxSeconds) {

        /** Mean in milliseconds (0 without recordings). */
        public double meanMillis() {
            return count == 0 ? 0 : sumSeconds / count * 1000;
        }

        public double maxMillis() {
            return maxSeconds * 1000;
        }
    }

    /** The timer exported as {@code <name>_seconds_count|_sum|_max}, summed over its tags. */
    public static Timer timer(String exposition, String name) {
        long count = 0;
        double sum = 0;
        double max = 0;
        Pattern line = Pattern.compile("(?m)^" + Pattern.quote(name)
                + "_seconds_(count|sum|max)(?:\\{[^}]*})? (\\S+)$");
        Matcher m = line.matcher(exposition);
        while (m.find()) {
            double value = Double.parseDouble(m.group(2));
            switch (m.group(1)) {
                case "count" -> count += (long) value;
                case "sum" -> sum += value;
                case "max" -> max = Math.max(max, value);
            }
        }
        return new Timer(count, sum, max);
    }
}
