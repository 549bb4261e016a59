package dev.dispatcher.load.gatling;

import dev.dispatcher.load.mode.Servers;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@link IngestBenchmark}'s options, {@code --name value}, with their documented defaults (the quick ones with
 * {@code --quick}); a bad or unknown option fails naming it.
 *
 * @param concurrency {@code --concurrency}: single-message producers (default {@value #DEFAULT_CONCURRENCY})
 * @param batchConcurrency {@code --batch-concurrency}: batch producers (default {@value #DEFAULT_BATCH_CONCURRENCY})
 * @param duration {@code --duration}: seconds per scenario (default 30)
 * @param warmup {@code --warmup}: seconds of warm-up (default 120)
 * @param ceiling {@code --ceiling}: seconds of the insert ceiling (default 15)
 * @param scenarios {@code --scenarios single,batch,replay[,health-flood]}
 * @param healthClients {@code --health-clients}: health callers of {@code health-flood} (default {@value
 *     #DEFAULT_HEALTH_CLIENTS})
 * @param healthAddresses {@code --health-addresses}: the client addresses the health callers come from, {@code
 *     127.0.1.1} up (default {@value #DEFAULT_HEALTH_ADDRESSES}, at most {@value #MAX_HEALTH_ADDRESSES}): one
 *     address is throttled by the service's per-address health limit, 200 measure what the health answers
 *     themselves cost
 * @param serviceJvmOptions {@code --service-jvm-options "-Xmx1g ..."}
 * @param loadWarmup {@code --load-warmup}: seconds the load generator runs the warm-up load against an in-harness
 *     stub ({@link IngestStub}) before the service is launched, so the fresh start's ramp measures the service and
 *     not a cold generator (default 20, quick 5; 0: none)
 * @param drainRows {@code --drain-rows}: rows of each untimed relay drain round after the scenarios, a backlog seeded
 *     while the relay is paused, rounds until the service's compiler settles (default 0: none); the AOT cache's
 *     training run ({@code load-tests/aot/train.sh}) uses it so the cache covers the relay's drain beside ingest
 * @param inboxRecords {@code --inbox-records}: records sent untimed, after the drain rounds, through one webhook
 *     inbox consumer configured as {@code blackbox-inbox}'s and a receiver in the harness ({@link InboxRounds}), in
 *     rounds of at most {@value InboxRounds#ROUND_RECORDS} (default 0: none, and no consumer); the training run uses
 *     it so the cache covers the inbox webhook path too
 * @param servers {@code --pg-url}, {@code --pg-user}, {@code --pg-password}, {@code --bootstrap}
 */
record IngestOptions(int concurrency, int batchConcurrency, Duration duration, Duration warmup, Duration ceiling,
        List<IngestLoad.Scenario> scenarios, int healthClients, int healthAddresses, List<String> serviceJvmOptions,
        Duration loadWarmup, int drainRows, int inboxRecords, Servers servers) {

    static final int DEFAULT_CONCURRENCY = 32;
    static final int QUICK_CONCURRENCY = 8;
    static final int DEFAULT_BATCH_CONCURRENCY = 16;
    static final int QUICK_BATCH_CONCURRENCY = 4;
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    static final Duration QUICK_DURATION = Duration.ofSeconds(5);
    static final Duration DEFAULT_WARMUP = Duration.ofSeconds(120);
    static final Duration QUICK_WARMUP = Duration.ofSeconds(5);
    static final Duration DEFAULT_LOAD_WARMUP = Duration.ofSeconds(20);
    static final Duration QUICK_LOAD_WARMUP = Duration.ofSeconds(5);
    static final Duration DEFAULT_CEILING = Duration.ofSeconds(15);
    static final Duration QUICK_CEILING = Duration.ofSeconds(3);
    static final String DEFAULT_SCENARIOS = "single,batch,replay";
    static final int DEFAULT_HEALTH_CLIENTS = 200;
    static final int DEFAULT_HEALTH_ADDRESSES = 1;
    /** The loopback addresses {@code 127.0.1.1} to {@code 127.0.1.254}. */
    static final int MAX_HEALTH_ADDRESSES = 254;

    private static final Set<String> NAMES = Set.of("quick", "concurrency", "batch-concurrency", "duration", "warmup",
            "ceiling", "scenarios", "health-clients", "health-addresses", "service-jvm-options", "load-warmup",
            "drain-rows", "inbox-records", "pg-url", "pg-user", "pg-password", "bootstrap");

    /**
     * Parses {@code args}.
     *
     * @throws IllegalArgumentException naming the option when one is unknown or its value is bad
     */
    static IngestOptions parse(String... args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || !NAMES.contains(args[i].substring(2))) {
                throw new IllegalArgumentException("unknown option '" + args[i] + "'; options: --"
                        + String.join(" --", NAMES.stream().sorted().toList()));
            }
            String name = args[i].substring(2);
            o.put(name, i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : "true");
        }
        boolean quick = o.containsKey("quick");
        List<IngestLoad.Scenario> scenarios = Arrays.stream(o.getOrDefault("scenarios", DEFAULT_SCENARIOS).split(","))
                .map(s -> scenario(s.strip())).toList();
        int single = scenarios.indexOf(IngestLoad.Scenario.SINGLE);
        int replay = scenarios.indexOf(IngestLoad.Scenario.REPLAY);
        if (replay >= 0 && (single < 0 || single > replay)) {
            throw new IllegalArgumentException("--scenarios: replay repeats the ids of a single run, so single must"
                    + " come before it, but was '" + o.get("scenarios") + "'");
        }
        String jvm = o.getOrDefault("service-jvm-options", "").strip();
        return new IngestOptions(positive(o, "concurrency", quick ? QUICK_CONCURRENCY : DEFAULT_CONCURRENCY),
                positive(o, "batch-concurrency", quick ? QUICK_BATCH_CONCURRENCY : DEFAULT_BATCH_CONCURRENCY),
                Duration.ofSeconds(positive(o, "duration",
                        (int) (quick ? QUICK_DURATION : DEFAULT_DURATION).toSeconds())),
                Duration.ofSeconds(nonNegative(o, "warmup", (int) (quick ? QUICK_WARMUP : DEFAULT_WARMUP).toSeconds())),
                Duration.ofSeconds(positive(o, "ceiling", (int) (quick ? QUICK_CEILING : DEFAULT_CEILING).toSeconds())),
                scenarios, positive(o, "health-clients", DEFAULT_HEALTH_CLIENTS), healthAddresses(o),
                jvm.isEmpty() ? List.of() : List.of(jvm.split("\\s+")),
                Duration.ofSeconds(nonNegative(o, "load-warmup",
                        (int) (quick ? QUICK_LOAD_WARMUP : DEFAULT_LOAD_WARMUP).toSeconds())),
                nonNegative(o, "drain-rows", 0), nonNegative(o, "inbox-records", 0),
                new Servers(o.get("pg-url"), o.getOrDefault("pg-user", Servers.DEFAULT_USER),
                        o.getOrDefault("pg-password", Servers.DEFAULT_USER), o.get("bootstrap")));
    }

    private static IngestLoad.Scenario scenario(String name) {
        try {
            return IngestLoad.Scenario.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--scenarios takes single, batch, replay and health-flood, but got '"
                    + name + "'");
        }
    }

    private static int healthAddresses(Map<String, String> o) {
        int value = positive(o, "health-addresses", DEFAULT_HEALTH_ADDRESSES);
        if (value > MAX_HEALTH_ADDRESSES) {
            throw new IllegalArgumentException("--health-addresses must be at most " + MAX_HEALTH_ADDRESSES
                    + ", but was '" + value + "'");
        }
        return value;
    }

    private static int positive(Map<String, String> o, String name, int fallback) {
        int value = nonNegative(o, name, fallback);
        if (value == 0) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, but was 0");
        }
        return value;
    }

    private static int nonNegative(Map<String, String> o, String name, int fallback) {
        String value = o.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--" + name + " must be a whole number, 0 or more, but was '" + value + "'");
    }
}
