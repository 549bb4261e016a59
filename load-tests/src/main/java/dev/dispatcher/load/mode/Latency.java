package dev.dispatcher.load.mode;

import java.time.Duration;

/**
 * {@code latency}: one-row transactions at a fixed rate into the in-process service's outbox, commit-to-Kafka
 * latency from the consumer.
 *
 * @param keys {@code --keys} of the warm-up drains (the offered rows spread over 64 keys)
 * @param payloadBytes {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param tuning the relay's settings
 * @param rate {@code --rate}: offered rows a second (default {@value #DEFAULT_RATE}, {@value #QUICK_RATE} with
 *     {@code --quick})
 * @param duration {@code --duration-s}: how long (default 30 s, 5 s with {@code --quick})
 * @param warmup {@code --warmup}: rows of one untimed warm-up drain round (default {@value #DEFAULT_WARMUP}); with
 *     a warm-up, {@link #TRICKLE_WARMUP} of the offered load follow it, untimed
 * @param servers the servers
 */
public record Latency(Keys keys, int payloadBytes, Ordering ordering, RelayTuning tuning, int rate,
        Duration duration, int warmup, Servers servers) implements BenchMode {

    public static final String NAME = "latency";
    public static final int DEFAULT_RATE = 2_000;
    public static final int QUICK_RATE = 200;
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    public static final Duration QUICK_DURATION = Duration.ofSeconds(5);
    public static final int DEFAULT_WARMUP = 20_000;
    /** The offered load, untimed, after the warm-up drain: a trickle runs code a drain does not. */
    public static final Duration TRICKLE_WARMUP = Duration.ofSeconds(10);

    @Override
    public String name() {
        return NAME;
    }

    static Latency parse(Options o) {
        boolean quick = o.quick();
        return new Latency(Keys.parse(o), o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 1, 1 << 20),
                Ordering.parse(o, Ordering.PER_KEY), RelayTuning.parse(o), rate(o, quick), duration(o, quick),
                o.integer("warmup", quick ? 0 : DEFAULT_WARMUP, 0, Backlog.MAX_N), Servers.parse(o));
    }

    /** {@code --rate}, shared by the latency modes. */
    static int rate(Options o, boolean quick) {
        return o.integer("rate", quick ? QUICK_RATE : DEFAULT_RATE, 1, 100_000);
    }

    /** {@code --duration-s}, shared by the latency modes. */
    static Duration duration(Options o, boolean quick) {
        return o.duration("duration-s", quick ? QUICK_DURATION : DEFAULT_DURATION, Duration.ofSeconds(1),
                Duration.ofHours(24));
    }
}
