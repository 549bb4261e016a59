package dev.dispatcher.load.mode;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code blackbox-formats}: one service jar per record format ({@code dispatcher.relay.format}), each warmed up, then
 * drains of N rows in rounds, the formats taking turns within each round, so each format's rate and its ratio to
 * {@code plain}'s come from the same run under the same conditions.
 *
 * @param backlog {@code --n} (default {@value #DEFAULT_N}, {@value #QUICK_N} with {@code --quick}), {@code --keys},
 *     {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param formats {@code --formats}: comma-separated, {@code plain} among them (default {@link #DEFAULT_FORMATS})
 * @param rounds {@code --rounds}: drains of each format (default {@value #DEFAULT_ROUNDS}, {@value #QUICK_ROUNDS}
 *     with {@code --quick})
 * @param warmup {@code --warmup}: rows of one warm-up round of each service (default {@value #DEFAULT_WARMUP}, none
 *     with {@code --quick})
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on every service's command line
 * @param servers the servers
 */
public record BlackBoxFormats(Backlog backlog, Ordering ordering, List<String> formats, int rounds, int warmup,
        List<String> serviceArgs, Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-formats";
    public static final int DEFAULT_N = 100_000;
    public static final int QUICK_N = 2_000;
    public static final int DEFAULT_ROUNDS = 3;
    public static final int QUICK_ROUNDS = 1;
    public static final int DEFAULT_WARMUP = 100_000;
    /** Every value of {@code dispatcher.relay.format}; {@code plain} is the one the others are compared with. */
    public static final List<String> DEFAULT_FORMATS = List.of("plain", "cloudevents-binary",
            "cloudevents-structured");
    public static final String PLAIN = "plain";

    @Override
    public String name() {
        return NAME;
    }

    static BlackBoxFormats parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxFormats(Backlog.parse(o, quick ? QUICK_N : DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), formats(o.text("formats", String.join(",", DEFAULT_FORMATS))),
                o.integer("rounds", quick ? QUICK_ROUNDS : DEFAULT_ROUNDS, 1, 20),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), o.serviceArgs(),
                Servers.parse(o));
    }

    /**
     * {@code --formats}: each a value of {@code dispatcher.relay.format}, none twice, {@code plain} among them.
     *
     * @throws IllegalArgumentException naming the option and the value otherwise
     */
    static List<String> formats(String value) {
        List<String> formats = new ArrayList<>();
        for (String format : value.split(",")) {
            String f = format.strip();
            if (!DEFAULT_FORMATS.contains(f) || formats.contains(f)) {
                throw new IllegalArgumentException("--formats must list distinct values of " + DEFAULT_FORMATS
                        + ", plain among them, but was '" + value + "'");
            }
            formats.add(f);
        }
        if (!formats.contains(PLAIN)) {
            throw new IllegalArgumentException("--formats must list distinct values of " + DEFAULT_FORMATS
                    + ", plain among them, but was '" + value + "'");
        }
        return List.copyOf(formats);
    }
}
