package dev.dispatcher.load.mode;

import dev.dispatcher.app.config.IngestProperties;
import java.time.Duration;
import java.util.List;

/**
 * {@code hostile}: the service jar beside hostile clients, each phase's rate beside the same rate without them,
 * measured in the same run: slow bodies, token bombs, an encoded operator path, a password guesser beside the user
 * and a health flood.
 *
 * @param producers {@code --producers}: closed-loop single-message producers whose rate the slow bodies and the
 *     health flood must leave (default {@value #DEFAULT_PRODUCERS})
 * @param window {@code --window-s}: each measured window, unprotected and protected alike (default
 *     {@value #DEFAULT_WINDOW_S} s, {@value #QUICK_WINDOW_S} with {@code --quick})
 * @param warmup {@code --warmup-s}: a round of untimed single messages before the first window, repeated until the
 *     service's compiler settles (default {@value #DEFAULT_WARMUP_S} s; one round of {@value #QUICK_WARMUP_S} s with
 *     {@code --quick}; 0: none)
 * @param slowBodies {@code --slow-bodies}: raw connections each declaring a batch of {@link #SLOW_CONTENT_LENGTH}
 *     bytes and sending one byte per {@code --slow-byte-ms} (default {@value #DEFAULT_SLOW_BODIES})
 * @param slowByteEvery {@code --slow-byte-ms} (default {@value #DEFAULT_SLOW_BYTE_MS} ms, {@value #QUICK_SLOW_BYTE_MS}
 *     with {@code --quick})
 * @param bodyTimeout {@code --body-timeout-ms}: set as the service's {@code dispatcher.ingest.body-timeout}; null
 *     leaves the service's default ({@link IngestProperties#DEFAULT_BODY_TIMEOUT}); {@value #QUICK_BODY_TIMEOUT_MS}
 *     ms with {@code --quick}
 * @param bombs {@code --bombs}: parallel batches of {@code --bomb-items} empty objects (default
 *     {@value #DEFAULT_BOMBS})
 * @param bombItems {@code --bomb-items} (default {@value #DEFAULT_BOMB_ITEMS}: 8.4 MB, within a batch's body bound)
 * @param healthClients {@code --health-clients}: connections calling {@code /actuator/health} in a loop from one
 *     address (default {@value #DEFAULT_HEALTH_CLIENTS})
 * @param guesses {@code --guesses}: wrong passwords for the user before it signs in from another address (default
 *     {@value #DEFAULT_GUESSES})
 * @param serviceArgs {@code --service-args "--name=value ..."}: more settings on the service's command line
 * @param servers the servers
 * @param quick {@code --quick}: CI-sized windows and a single warm-up round
 */
public record Hostile(int producers, Duration window, Duration warmup, int slowBodies, Duration slowByteEvery,
        Duration bodyTimeout, int bombs, int bombItems, int healthClients, int guesses, List<String> serviceArgs,
        Servers servers, boolean quick) implements BenchMode {

    public static final String NAME = "hostile";
    public static final int DEFAULT_PRODUCERS = 16;
    public static final int DEFAULT_WINDOW_S = 20;
    public static final int QUICK_WINDOW_S = 2;
    public static final int DEFAULT_WARMUP_S = 10;
    public static final int QUICK_WARMUP_S = 1;
    public static final int DEFAULT_SLOW_BODIES = 8;
    /** What a slow body declares: 8 MiB, within a batch's body bound (8 x the payload limit + 64 KiB). */
    public static final int SLOW_CONTENT_LENGTH = 8 * 1024 * 1024;
    public static final int DEFAULT_SLOW_BYTE_MS = 5_000;
    public static final int QUICK_SLOW_BYTE_MS = 500;
    public static final int QUICK_BODY_TIMEOUT_MS = 2_000;
    public static final int DEFAULT_BOMBS = 7;
    public static final int DEFAULT_BOMB_ITEMS = 2_800_000;
    public static final int DEFAULT_HEALTH_CLIENTS = 200;
    public static final int DEFAULT_GUESSES = 10;

    public Hostile {
        serviceArgs = List.copyOf(serviceArgs);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The body timeout the service runs with: {@link #bodyTimeout} or the service's default. */
    public Duration effectiveBodyTimeout() {
        return bodyTimeout == null ? IngestProperties.DEFAULT_BODY_TIMEOUT : bodyTimeout;
    }

    static Hostile parse(Options o) {
        boolean quick = o.quick();
        Duration bodyTimeout = o.duration("body-timeout-ms", quick ? Duration.ofMillis(QUICK_BODY_TIMEOUT_MS)
                : IngestProperties.DEFAULT_BODY_TIMEOUT, Duration.ofMillis(100), Duration.ofHours(1));
        return new Hostile(o.integer("producers", DEFAULT_PRODUCERS, 1, 1_000),
                o.duration("window-s", Duration.ofSeconds(quick ? QUICK_WINDOW_S : DEFAULT_WINDOW_S),
                        Duration.ofSeconds(1), Duration.ofMinutes(30)),
                o.duration("warmup-s", Duration.ofSeconds(quick ? QUICK_WARMUP_S : DEFAULT_WARMUP_S), Duration.ZERO,
                        Duration.ofMinutes(30)),
                o.integer("slow-bodies", DEFAULT_SLOW_BODIES, 0, 10_000),
                o.duration("slow-byte-ms", Duration.ofMillis(quick ? QUICK_SLOW_BYTE_MS : DEFAULT_SLOW_BYTE_MS),
                        Duration.ofMillis(10), Duration.ofMinutes(10)),
                quick || o.given("body-timeout-ms") ? bodyTimeout : null,
                o.integer("bombs", DEFAULT_BOMBS, 0, 100),
                o.integer("bomb-items", DEFAULT_BOMB_ITEMS, 1, 2_800_000),
                o.integer("health-clients", DEFAULT_HEALTH_CLIENTS, 0, 10_000),
                o.integer("guesses", DEFAULT_GUESSES, 0, 1_000),
                o.serviceArgs(), Servers.parse(o), quick);
    }
}
