package dev.dispatcher.load.mode;

import java.time.Duration;
import java.util.List;

/**
 * {@code blackbox-sources}: one service jar draining two sources, {@code default} on the first PostgreSQL and
 * {@value #SECOND_SOURCE} on the second ({@code --pg2-url}), each alone, both at once, and both with the second's
 * link cut mid-drain; with the per-message costs of the first drain.
 *
 * @param backlog {@code --n} rows per source and phase (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code
 *     --quick}), {@code --keys}, {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param warmup {@code --warmup}: rows of one warm-up round on the default source (default {@value #DEFAULT_WARMUP},
 *     none with {@code --quick})
 * @param pg2Url {@code --pg2-url jdbc:postgresql://host:port/db}: the second PostgreSQL (required with {@code
 *     --pg-url}; without both, a second embedded durable server); {@code --pg2-user}, {@code --pg2-password} as the
 *     first's
 * @param pg2User its user
 * @param pg2Password its password
 * @param down {@code --down-s}: how long the second source's link stays cut (default {@value #DEFAULT_DOWN_S} s)
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the first PostgreSQL and the broker
 */
public record BlackBoxSources(Backlog backlog, Ordering ordering, int warmup, String pg2Url, String pg2User,
        String pg2Password, Duration down, List<String> serviceArgs, Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-sources";
    public static final String SECOND_SOURCE = "second";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 3_000;
    public static final int DEFAULT_WARMUP = 100_000;
    public static final int DEFAULT_DOWN_S = 5;

    public BlackBoxSources {
        if (pg2Url != null && !pg2Url.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("--pg2-url must be jdbc:postgresql://host[:port]/database, but was '"
                    + pg2Url + "'");
        }
        if ((pg2Url == null) != (servers.pgUrl() == null)) {
            throw new IllegalArgumentException("--pg2-url and --pg-url come together (two external servers) or not"
                    + " at all (two embedded ones)");
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    static BlackBoxSources parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxSources(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N),
                o.text("pg2-url", null), o.text("pg2-user", Servers.DEFAULT_USER),
                o.text("pg2-password", Servers.DEFAULT_USER),
                o.duration("down-s", Duration.ofSeconds(DEFAULT_DOWN_S), Duration.ofSeconds(1),
                        Duration.ofMinutes(10)),
                o.serviceArgs(), Servers.parse(o));
    }
}
