package dev.dispatcher.load.mode;

/**
 * {@code scale}: the same drain of N rows by 1, 2 and 4 services on one database, each in its own JVM started from
 * the harness's class path ({@code java -cp ... DispatcherApplication}, no jar needed), with the harness's relay
 * settings; timed by the harness's consumer from the resume.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param tuning the relays' settings
 * @param warmup {@code --warmup}: rows of one warm-up round (default {@value #DEFAULT_WARMUP})
 * @param servers the servers
 */
public record Scale(Backlog backlog, Ordering ordering, RelayTuning tuning, int warmup, Servers servers)
        implements BenchMode {

    public static final String NAME = "scale";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 20_000;

    @Override
    public String name() {
        return NAME;
    }

    static Scale parse(Options o) {
        boolean quick = o.quick();
        return new Scale(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), RelayTuning.parse(o),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), Servers.parse(o));
    }
}
