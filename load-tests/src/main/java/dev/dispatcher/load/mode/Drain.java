package dev.dispatcher.load.mode;

/**
 * {@code drain}: the in-process service drains N seeded rows; the naive baseline and the reference ceiling in the
 * same run; optionally the isolation drains ({@code --poison-topic}, {@code --failing-key}).
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param tuning the relay's settings
 * @param warmup {@code --warmup}: rows of one untimed warm-up round (default {@value #DEFAULT_WARMUP}, none with
 *     {@code --quick}); rounds repeat until the JVM has nearly stopped compiling
 * @param baseline {@code --baseline} (default true): drain up to {@value #BASELINE_MAX_N} rows with the naive relay
 * @param poisonTopic {@code --poison-topic}: drain N rows again with one row for a missing topic first
 * @param failingKey {@code --failing-key}: drain N rows of 64 keys whose {@code key-0} fails on every attempt
 * @param servers the servers
 */
public record Drain(Backlog backlog, Ordering ordering, RelayTuning tuning, int warmup, boolean baseline,
        boolean poisonTopic, boolean failingKey, Servers servers) implements BenchMode {

    public static final String NAME = "drain";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 20_000;
    /** The naive baseline drains this many rows at most: at about a thousand a second, more add nothing. */
    public static final int BASELINE_MAX_N = 20_000;

    @Override
    public String name() {
        return NAME;
    }

    static Drain parse(Options o) {
        boolean quick = o.quick();
        return new Drain(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), RelayTuning.parse(o),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), o.flag("baseline", true),
                o.flag("poison-topic", false), o.flag("failing-key", false), Servers.parse(o));
    }
}
