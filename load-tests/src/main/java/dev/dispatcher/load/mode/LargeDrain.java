package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code large-drain}: the service jar in a small heap drains N rows of large payloads inserted by SQL.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes} (default {@value #DEFAULT_PAYLOAD_BYTES})
 * @param ordering {@code --ordering} (default per-key)
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the servers
 */
public record LargeDrain(Backlog backlog, Ordering ordering, List<String> serviceArgs, Servers servers)
        implements BenchMode {

    public static final String NAME = "large-drain";
    public static final int DEFAULT_N = 5_000;
    public static final int QUICK_N = 60;
    public static final int DEFAULT_PAYLOAD_BYTES = 2 * 1024 * 1024;

    @Override
    public String name() {
        return NAME;
    }

    static LargeDrain parse(Options o) {
        return new LargeDrain(Backlog.parse(o, o.quick() ? QUICK_N : DEFAULT_N, DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.serviceArgs(), Servers.parse(o));
    }
}
