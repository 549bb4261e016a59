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
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on the service's command line
 * @param servers the servers
 */
public record BlackBox(Backlog backlog, Ordering ordering, int warmup, boolean poisonTopic, List<String> serviceArgs,
        Servers servers) implements BenchMode {

    public static final String NAME = "blackbox";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 100_000;

    @Override
    public String name() {
        return NAME;
    }

    static BlackBox parse(Options o) {
        boolean quick = o.quick();
        return new BlackBox(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N),
                o.flag("poison-topic", false), o.serviceArgs(), Servers.parse(o));
    }
}
