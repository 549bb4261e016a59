package dev.dispatcher.load.mode;

import java.time.Duration;
import java.util.List;

/**
 * {@code relay-sustained}: the service jar for a fixed time at a fixed offered rate, written by SQL writers, with
 * retention on a short window; a line a minute, a flatness verdict at the end.
 *
 * @param minutes {@code --minutes}: how long the load runs (default {@value #DEFAULT_MINUTES}, {@value
 *     #QUICK_MINUTES} with {@code --quick})
 * @param rate {@code --rate}: rows offered a second (default {@value #DEFAULT_RATE}, {@value #QUICK_RATE} with
 *     {@code --quick})
 * @param batchRows {@code --batch-rows}: rows of one writer transaction (one multi-row INSERT; default {@value
 *     #DEFAULT_BATCH_ROWS})
 * @param writers {@code --writers}: writer threads (default {@value #DEFAULT_WRITERS}); each owns its keys, so a
 *     key's rows commit in their seq order
 * @param keys {@code --keys}: a number of keys, at least {@code --writers} (default 64), or {@code none}
 * @param payloadBytes {@code --payload-bytes}
 * @param ordering {@code --ordering} (default per-key)
 * @param retention {@code --retention-s}: the service's {@code dispatcher.retention.delivered} (default {@value
 *     #DEFAULT_RETENTION_SECONDS} s)
 * @param serviceArgs {@code --service-args "--name=value ..."}
 * @param servers the servers
 */
public record Sustained(int minutes, int rate, int batchRows, int writers, Keys keys, int payloadBytes,
        Ordering ordering, Duration retention, List<String> serviceArgs, Servers servers) implements BenchMode {

    public static final String NAME = "relay-sustained";
    public static final int DEFAULT_MINUTES = 10;
    public static final int QUICK_MINUTES = 1;
    public static final int DEFAULT_RATE = 5_000;
    public static final int QUICK_RATE = 300;
    public static final int DEFAULT_BATCH_ROWS = 20;
    public static final int DEFAULT_WRITERS = 4;
    public static final int DEFAULT_RETENTION_SECONDS = 60;
    /** Rows one run writes at most: the harness keeps a bit per written id. */
    public static final long MAX_ROWS = 1_000_000_000L;

    public Sustained {
        if (keys instanceof Keys.Hot) {
            throw new IllegalArgumentException("relay-sustained takes --keys as a number of keys or none, but was"
                    + " 'hot': each writer owns its keys");
        }
        if ((long) minutes * 60 * rate > MAX_ROWS) {
            throw new IllegalArgumentException("--minutes x 60 x --rate must be at most " + MAX_ROWS + " rows, but was "
                    + (long) minutes * 60 * rate);
        }
        if (keys instanceof Keys.Spread(int count) && count < writers) {
            throw new IllegalArgumentException("--keys must be at least --writers (" + writers + "), but was "
                    + count + ": each writer owns its keys");
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    static Sustained parse(Options o) {
        boolean quick = o.quick();
        return new Sustained(o.integer("minutes", quick ? QUICK_MINUTES : DEFAULT_MINUTES, 1, 24 * 60),
                o.integer("rate", quick ? QUICK_RATE : DEFAULT_RATE, 1, 100_000),
                o.integer("batch-rows", DEFAULT_BATCH_ROWS, 1, 10_000),
                o.integer("writers", DEFAULT_WRITERS, 1, 64), Keys.parse(o),
                o.integer("payload-bytes", Backlog.DEFAULT_PAYLOAD_BYTES, 1, 1 << 20),
                Ordering.parse(o, Ordering.PER_KEY),
                o.duration("retention-s", Duration.ofSeconds(DEFAULT_RETENTION_SECONDS), Duration.ofSeconds(1),
                        Duration.ofDays(1)),
                o.serviceArgs(), Servers.parse(o));
    }
}
