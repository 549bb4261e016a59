package dev.dispatcher.load.mode;

import java.time.Duration;
import java.util.List;

/**
 * {@code blackbox-latency}: the latency mode against the service jar ({@code java -jar}, its defaults but {@code
 * --ordering}).
 *
 * @param keys {@code --keys} of the warm-up drains
 * @param payloadBytes {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param rate {@code --rate} (as {@link Latency})
 * @param duration {@code --duration-s} (as {@link Latency})
 * @param warmup {@code --warmup}: rows of one warm-up drain round (default {@value #DEFAULT_WARMUP}); trickle rounds
 *     of {@link Latency#TRICKLE_WARMUP} follow until the service has nearly stopped compiling, at most {@link
 *     #trickleMaxRounds()}
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the servers
 * @param pooler {@code --pooler}: the service behind PgBouncer in transaction pooling mode ({@code
 *     /usr/sbin/pgbouncer}), {@code LISTEN} straight at the server
 */
public record BlackBoxLatency(Keys keys, int payloadBytes, Ordering ordering, int rate, Duration duration,
        int warmup, List<String> serviceArgs, Servers servers, boolean pooler) implements BenchMode {

    public static final String NAME = "blackbox-latency";
    public static final int DEFAULT_WARMUP = 20_000;
    /** Trickle rounds after the warm-up drain at most, unless {@code -Ddispatcher.bench.trickle-rounds} says more. */
    public static final int DEFAULT_TRICKLE_MAX_ROUNDS = 6;

    @Override
    public String name() {
        return NAME;
    }

    /** {@link #DEFAULT_TRICKLE_MAX_ROUNDS}, or {@code -Ddispatcher.bench.trickle-rounds}. */
    public static int trickleMaxRounds() {
        return Integer.getInteger("dispatcher.bench.trickle-rounds", DEFAULT_TRICKLE_MAX_ROUNDS);
    }

    static BlackBoxLatency parse(Options o) {
        boolean quick = o.quick();
        return new BlackBoxLatency(Keys.parse(o), o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 1, 1 << 20),
                Ordering.parse(o, Ordering.PER_KEY), Latency.rate(o, quick), Latency.duration(o, quick),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), o.serviceArgs(), Servers.parse(o), o.flag("pooler", false));
    }
}
