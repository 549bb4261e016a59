package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code blackbox}: the service jar ({@code java -jar}, its defaults but {@code --ordering}) drains N rows seeded
 * while it is paused; the reference ceiling before and after.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param warmup {@code --warmup}: rows of one warm-up round (default {@value #DEFAULT_WARMUP}, none with {@code
 *     --quick}): a service jar's compiler settles only after rounds with the measured drain's standing backlog
 * @param poisonTopic {@code --poison-topic}: drain N rows again with one row for a missing topic first
 * @param freshN {@code --fresh-n}: rows waiting when the service's JVM is launched, drained first and timed from the
 *     launch for {@code time_to_80pct_s} (default {@value #DEFAULT_FRESH_N}, none with {@code --quick}; 0: none)
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on the service's command line
 * @param servers the servers
 * @param pooler {@code --pooler}: then drain N rows again with a second service jar behind PgBouncer in transaction
 *     pooling mode ({@code /usr/sbin/pgbouncer}), warmed up as the first
 * @param compareOrdering {@code --compare-ordering}: then a second service jar under {@code per-key-across-topics},
 *     warmed up as the first, and {@code pairs} pairs of N-row drains, one by each service, in turns (only with
 *     {@code --ordering per-key}, the first service's)
 * @param pairs {@code --pairs}: the comparison's pairs (default {@value #DEFAULT_PAIRS}; only with {@code
 *     --compare-ordering})
 */
public record BlackBox(Backlog backlog, Ordering ordering, int warmup, boolean poisonTopic, int freshN,
        List<String> serviceArgs, Servers servers, boolean pooler, boolean compareOrdering, int pairs)
        implements BenchMode {

    public static final String NAME = "blackbox";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 100_000;
    public static final int DEFAULT_FRESH_N = 200_000;
    public static final int DEFAULT_PAIRS = 3;
    public static final int MAX_PAIRS = 20;

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The mode's options.
     *
     * @throws IllegalArgumentException when {@code --compare-ordering} comes with an ordering other than per-key, or
     *     {@code --pairs} without it
     */
    static BlackBox parse(Options o) {
        boolean quick = o.quick();
        Backlog backlog = Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES);
        Ordering ordering = Ordering.parse(o, Ordering.PER_KEY);
        BlackBox b = new BlackBox(backlog, ordering, o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0,
                Backlog.MAX_N), o.flag("poison-topic", false), o.integer("fresh-n", quick ? 0 : DEFAULT_FRESH_N, 0,
                Backlog.MAX_N), o.serviceArgs(), Servers.parse(o), o.flag("pooler", false),
                o.flag("compare-ordering", false), o.integer("pairs", DEFAULT_PAIRS, 1, MAX_PAIRS));
        if (b.compareOrdering() && ordering != Ordering.PER_KEY) {
            throw new IllegalArgumentException("--compare-ordering compares per-key with per-key-across-topics, so"
                    + " --ordering must be per-key, but was '" + ordering.text() + "'");
        }
        if (!b.compareOrdering() && o.given("pairs")) {
            throw new IllegalArgumentException("--pairs counts --compare-ordering's pairs; give it with"
                    + " --compare-ordering");
        }
        return b;
    }
}
