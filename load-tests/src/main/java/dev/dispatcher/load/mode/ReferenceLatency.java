package dev.dispatcher.load.mode;

import java.time.Duration;

/**
 * {@code reference-latency}: {@code blackbox-latency}'s load and measurement with the hand-written reference relay
 * in its own JVM in place of the service.
 *
 * @param keys {@code --keys} of the warm-up drain
 * @param payloadBytes {@code --payload-bytes}
 * @param rate {@code --rate} (as {@link Latency})
 * @param duration {@code --duration-s} (as {@link Latency})
 * @param warmup {@code --warmup}: rows of the one warm-up drain (default {@value #DEFAULT_WARMUP}); then all {@link
 *     BlackBoxLatency#trickleMaxRounds()} trickle rounds (one without a warm-up)
 * @param loops the reference's loops ({@code -Ddispatcher.bench.reference-loops}, default 1: keeps each key's
 *     order; more are an unordered reference)
 * @param servers the servers
 */
public record ReferenceLatency(Keys keys, int payloadBytes, int rate, Duration duration, int warmup, int loops,
        Servers servers) implements BenchMode {

    public static final String NAME = "reference-latency";
    public static final int DEFAULT_WARMUP = 20_000;

    @Override
    public String name() {
        return NAME;
    }

    /** {@code per-key} with one loop, {@code none} with more. */
    public Ordering ordering() {
        return loops == 1 ? Ordering.PER_KEY : Ordering.NONE;
    }

    static ReferenceLatency parse(Options o) {
        boolean quick = o.quick();
        int loops = Integer.getInteger("dispatcher.bench.reference-loops", 1);
        if (loops < 1) {
            throw new IllegalArgumentException("-Ddispatcher.bench.reference-loops must be at least 1, but was "
                    + loops);
        }
        return new ReferenceLatency(Keys.parse(o),
                o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 1, 1 << 20),
                Latency.rate(o, quick), Latency.duration(o, quick),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), loops, Servers.parse(o));
    }
}
