package dev.dispatcher.load.mode;

import java.util.List;

/**
 * {@code blackbox-new-topic}: the service jar ({@code java -jar}, its defaults but {@code --ordering}) on a broker
 * that creates topics on first use; rows written for a topic that does not exist yet, round after round.
 *
 * @param backlog {@code --n} rows a round (default {@value #DEFAULT_N}), {@code --keys}, {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param rounds {@code --rounds}: new topics, one a round (default {@value #DEFAULT_ROUNDS}, {@value #QUICK_ROUNDS}
 *     with {@code --quick})
 * @param warmup {@code --warmup}: rows drained from an existing topic first, untimed (default {@value
 *     #DEFAULT_WARMUP}, none with {@code --quick})
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the servers; {@code --bootstrap} must name a broker that creates topics on first use
 */
public record BlackBoxNewTopic(Backlog backlog, Ordering ordering, int rounds, int warmup, List<String> serviceArgs,
        Servers servers) implements BenchMode {

    public static final String NAME = "blackbox-new-topic";
    public static final int DEFAULT_N = 2_000;
    public static final int DEFAULT_ROUNDS = 5;
    public static final int QUICK_ROUNDS = 2;
    public static final int DEFAULT_WARMUP = 20_000;

    @Override
    public String name() {
        return NAME;
    }

    /** The harness's own broker creates topics on first use for this mode. */
    @Override
    public boolean brokerCreatesTopics() {
        return true;
    }

    static BlackBoxNewTopic parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxNewTopic(Backlog.parse(o, DEFAULT_N, Backlog.DEFAULT_PAYLOAD_BYTES),
                Ordering.parse(o, Ordering.PER_KEY), o.integer("rounds", quick ? QUICK_ROUNDS : DEFAULT_ROUNDS, 1, 100),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), o.serviceArgs(), Servers.parse(o));
    }
}
