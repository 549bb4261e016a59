package dev.dispatcher.load;

import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.outbox.RelaySettings;
import dev.dispatcher.app.store.Ordering;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command-line options of {@link RelayBenchmark}: {@code --name value} pairs after the mode.
 *
 * @param mode drain, latency or sweep
 * @param n messages to drain
 * @param keys {@code 64} (spread evenly), {@code hot} (one key holds half, 63 share the rest) or a number
 * @param ordering per-key or none
 * @param batchSize relay batch size
 * @param inFlight max in-flight batches
 * @param concurrency publish concurrency
 * @param payloadBytes payload size
 * @param rate offered messages per second (latency mode)
 * @param duration how long to offer load (latency mode)
 * @param baseline whether to run the naive baseline (drain mode)
 * @param claimLinger the relay's claim linger ({@code dispatcher.relay.claim-linger})
 * @param warmup messages drained untimed before measuring (0 in quick mode by default)
 * @param handler inbox mode: {@code webhook} or {@code sql}
 * @param inboxConcurrency inbox mode: the consumer's concurrency ({@code --concurrency}, else the default)
 * @param receiverDelayMs inbox mode: how long the webhook receiver takes per call
 * @param failEvery inbox mode: the receiver answers 503 once for every this-many-th id (0: never)
 * @param pgUrl an external PostgreSQL ({@code jdbc:postgresql://host:port/db}), or null for the embedded one
 * @param pgUser its user
 * @param pgPassword its password
 * @param bootstrap an external Kafka's bootstrap servers, or null for the in-process broker
 * @param serviceArgs blackbox mode: extra command-line arguments of the service ({@code --service-args "--a=1 --b=2"},
 *     settings the harness does not set itself), for tuning experiments; empty by default
 * @param poisonKey inbox mode: one record whose key starts with NUL (Confluent's wire format) is produced to
 *     partition 0 before the N ordinary records ({@code --poison-key})
 * @param poisonTopic drain and blackbox modes ({@code --poison-topic}): also drain the N rows with one row for a
 *     missing topic first among them, and report that rate beside the clean one
 * @param failingKey ({@code --failing-key}) drain mode: also drain N rows of 64 keys whose {@code key-0} fails on
 *     every attempt (injected at the publisher's boundary), and report the other 63 keys' rate beside a drain of
 *     those 63 keys alone; inbox mode: the handler fails every record of {@code key-0}, and the drain is measured on
 *     the other keys' records against the same drain without the failing key in the same run
 */
record BenchOptions(String mode, int n, String keys, Ordering ordering, int batchSize, int inFlight, int concurrency,
        int payloadBytes, int rate, Duration duration, boolean baseline, Duration claimLinger, int warmup,
        String handler, int inboxConcurrency, int receiverDelayMs, int failEvery, String pgUrl, String pgUser,
        String pgPassword, String bootstrap, List<String> serviceArgs, boolean poisonKey, boolean poisonTopic,
        boolean failingKey) {

    /** These options with another {@code --duration-s}. */
    BenchOptions withDuration(Duration d) {
        return new BenchOptions(mode, n, keys, ordering, batchSize, inFlight, concurrency, payloadBytes, rate, d,
                baseline, claimLinger, warmup, handler, inboxConcurrency, receiverDelayMs, failEvery, pgUrl, pgUser,
                pgPassword, bootstrap, serviceArgs, poisonKey, poisonTopic, failingKey);
    }

    /** These options with {@code warmup} messages, the number a warm-up really drained (for the RESULT). */
    BenchOptions withWarmup(int drained) {
        return new BenchOptions(mode, n, keys, ordering, batchSize, inFlight, concurrency, payloadBytes, rate,
                duration, baseline, claimLinger, drained, handler, inboxConcurrency, receiverDelayMs, failEvery, pgUrl,
                pgUser, pgPassword, bootstrap, serviceArgs, poisonKey, poisonTopic, failingKey);
    }

    static BenchOptions parse(String[] args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: drain|latency|sweep|inbox|...|overload|large-drain [--n N]"
                    + " [--keys 64|hot|K] "
                    + "[--ordering per-key|none] [--batch-size B] [--in-flight F] [--concurrency C] "
                    + "[--payload-bytes P] [--rate R] [--duration-s S] [--claim-linger-ms L] [--warmup W] [--quick] "
                    + "[--baseline true|false] [--handler webhook|sql] [--receiver-delay-ms D] [--fail-every K] "
                    + "[--pg-url jdbc:postgresql://host:port/db --pg-user U --pg-password P] [--bootstrap host:port] "
                    + "[--service-args \"--name=value ...\"] [--poison-key] [--poison-topic] [--failing-key]");
        }
        Map<String, String> o = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i].replaceFirst("^--", "");
            if (FLAGS.contains(name)) {
                // a flag, also written "--flag true" or "--flag false"
                boolean valued = i + 1 < args.length && args[i + 1].matches("true|false");
                if (!valued || Boolean.parseBoolean(args[++i])) {
                    o.put(name, "true");
                }
            } else if (i + 1 < args.length) {
                o.put(name, args[++i]);
            } else {
                throw new IllegalArgumentException("option --" + name + " needs a value");
            }
        }
        boolean quick = Boolean.parseBoolean(o.getOrDefault("quick", "false"));
        String mode = args[0].toLowerCase(Locale.ROOT);
        return new BenchOptions(mode,
                Integer.parseInt(o.getOrDefault("n", switch (mode) {
                    case "overload" -> "300";
                    case "large-drain" -> quick ? "60" : "5000";
                    default -> quick ? "3000" : mode.equals("inbox") ? "20000" : "100000";
                })),
                o.getOrDefault("keys", "64"),
                // the relay's default is per-key, an inbox consumer's none
                "none".equals(o.getOrDefault("ordering", mode.equals("inbox") ? "none" : "per-key")) ? Ordering.NONE
                        : Ordering.PER_KEY,
                Integer.parseInt(o.getOrDefault("batch-size", "1000")), // the service's default
                Integer.parseInt(o.getOrDefault("in-flight", "4")),
                Integer.parseInt(o.getOrDefault("concurrency", "64")),
                Integer.parseInt(o.getOrDefault("payload-bytes", switch (mode) {
                    case "overload" -> "1048576"; // dispatcher.ingest.max-payload-size
                    case "large-drain" -> "2097152";
                    default -> "256";
                })),
                Integer.parseInt(o.getOrDefault("rate", quick ? "200" : "2000")),
                Duration.ofSeconds(Long.parseLong(o.getOrDefault("duration-s", quick ? "5" : "30"))),
                Boolean.parseBoolean(o.getOrDefault("baseline", "true")),
                Duration.ofMillis(Long.parseLong(o.getOrDefault("claim-linger-ms",
                        Long.toString(RelaySettings.DEFAULT_CLAIM_LINGER.toMillis())))),
                Integer.parseInt(o.getOrDefault("warmup", quick ? "0" : switch (mode) {
                    case "inbox" -> "10000";
                    case "overload", "large-drain" -> "0"; // not throughput figures: nothing to warm up
                    // a service jar's compiler settles only after rounds with the measured drain's standing backlog
                    // (BlackBoxDrain.warmUp): 20,000-row rounds left it compiling 21% of the measured drain's time
                    case "blackbox", "blackbox-scale" -> "100000";
                    default -> "20000";
                })),
                o.getOrDefault("handler", "webhook"),
                Integer.parseInt(o.getOrDefault("concurrency",
                        Integer.toString(InboxProperties.Consumer.DEFAULT_CONCURRENCY))),
                Integer.parseInt(o.getOrDefault("receiver-delay-ms", "2")),
                Integer.parseInt(o.getOrDefault("fail-every", "0")),
                o.get("pg-url"), o.getOrDefault("pg-user", "postgres"), o.getOrDefault("pg-password", "postgres"),
                o.get("bootstrap"),
                o.containsKey("service-args") ? List.of(o.get("service-args").trim().split("\\s+")) : List.of(),
                o.containsKey("poison-key"), o.containsKey("poison-topic"), o.containsKey("failing-key"));
    }

    /** Options that take no value. */
    private static final List<String> FLAGS = List.of("quick", "poison-key", "poison-topic", "failing-key");

    /** SQL expression for the key of generated row {@code g} (1-based). */
    String keyExpression() {
        return switch (keys) {
            case "hot" -> "CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'key-' || (g % 63) END";
            case "none", "0" -> "NULL";
            default -> "'key-' || (g % " + Integer.parseInt(keys) + ")";
        };
    }

    String orderingName() {
        return ordering == Ordering.NONE ? "none" : "per-key";
    }
}
