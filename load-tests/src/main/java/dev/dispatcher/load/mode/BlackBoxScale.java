package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code blackbox-scale}: the scale curve with the service jar, 1, 2 and 4 services ({@code java -jar}, their
 * defaults but {@code --ordering}) on one schema, timed by the rows' own times.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param warmup {@code --warmup}: rows of one warm-up round (default {@value #DEFAULT_WARMUP})
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param freshN {@code --fresh-n}: before the curve, rows waiting when one, then {@code --fresh-instances} fresh
 *     service jars are launched together on them (default 0: none)
 * @param freshInstances {@code --fresh-instances}: the fresh instances started together, against one (default
 *     {@value #DEFAULT_FRESH_INSTANCES})
 * @param servers the servers
 */
public record BlackBoxScale(Backlog backlog, Ordering ordering, int warmup, List<String> serviceArgs, int freshN,
        int freshInstances, Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-scale";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 100_000;
    public static final int DEFAULT_FRESH_INSTANCES = 2;

    @Override
    public String name() {
        return NAME;
    }

    static BlackBoxScale parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxScale(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N),
                o.serviceArgs(), o.integer("fresh-n", 0, 0, Backlog.MAX_N),
                o.integer("fresh-instances", DEFAULT_FRESH_INSTANCES, 2, 16), Servers.parse(o));
    }
}
