package dev.dispatcher.load.gatling;

import dev.dispatcher.load.ExternalServers;
import dev.dispatcher.load.RelayBenchmark;
import dev.dispatcher.load.ServiceProcess;
import dev.dispatcher.testkit.EmbeddedKafkaServer;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The HTTP ingest benchmark ({@code gatling-ingest}), run the way users deploy: the service in its own JVM
 * ({@code java -jar} on dispatcher-app's exec jar, {@link ServiceProcess}) on a durable PostgreSQL and a Kafka
 * broker, and the load generator (Gatling, {@link IngestSimulation}) here, in another JVM. In order:
 * <ol>
 *   <li>warm-up: untimed singles and batches for {@code --warmup} seconds, printing the rate every 10 s (a cold
 *       service answers at a third of its warm rate);</li>
 *   <li>the insert ceiling: one-row INSERT transactions into the real table at the load's concurrency
 *       ({@link InsertCeiling}, the reference of {@code ../shared/bench/README.md});</li>
 *   <li>Gatling, closed model: {@code single} (fresh ids), {@code batch} ({@value IngestLoad#BATCH_SIZE} per
 *       request) and {@code replay} (singles repeating ids the single run had accepted: each must be a 200);</li>
 *   <li>the Kafka check: once the outbox drained, every accepted id is looked for on the topic (lost) and
 *       counted (duplicates), from the records, never from the service's figures.</li>
 * </ol>
 * The relay runs throughout. The last line is {@code RESULT} and the JSON object DESIGN.md fixes.
 *
 * <p>Options: {@code --concurrency 32}, {@code --batch-concurrency 16}, {@code --duration 30} (s per scenario),
 * {@code --warmup 90} (s), {@code --ceiling 15} (s), {@code --scenarios single,batch,replay}, {@code --quick} (a
 * few seconds each, for CI), {@code --pg-url jdbc:postgresql://host:port/db --pg-user --pg-password} and
 * {@code --bootstrap host:port} for external servers, {@code --service-jvm-options "-Xmx1g ..."}; the jar is
 * dispatcher-app's exec jar (build it first) or {@code -Ddispatcher.service.jar}.
 */
public final class IngestBenchmark {

    private IngestBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> result = run(args);
        System.out.println("RESULT " + RelayBenchmark.json(result));
        System.exit(0);
    }

    /** Runs the benchmark and returns the RESULT's fields. */
    static Map<String, Object> run(String[] args) throws Exception {
        Map<String, String> o = options(args);
        boolean quick = o.containsKey("quick");
        int concurrency = Integer.parseInt(o.getOrDefault("concurrency", quick ? "8" : "32"));
        int batchConcurrency = Integer.parseInt(o.getOrDefault("batch-concurrency", quick ? "4" : "16"));
        Duration duration = Duration.ofSeconds(Long.parseLong(o.getOrDefault("duration", quick ? "5" : "30")));
        Duration warmup = Duration.ofSeconds(Long.parseLong(o.getOrDefault("warmup", quick ? "5" : "90")));
        Duration ceilingTime = Duration.ofSeconds(Long.parseLong(o.getOrDefault("ceiling", quick ? "3" : "15")));
        List<IngestLoad.Scenario> scenarios = Arrays.stream(o.getOrDefault("scenarios", "single,batch,replay")
                .split(",")).map(s -> IngestLoad.Scenario.valueOf(s.trim().toUpperCase(Locale.ROOT))).toList();

        String token = "dsp_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(24));
        String schema = "gatling_" + Long.toHexString(System.nanoTime());
        Map<String, Object> result = new LinkedHashMap<>();
        try (PostgresServer postgres = o.containsKey("pg-url")
                ? ExternalServers.postgres(o.get("pg-url"), o.getOrDefault("pg-user", "postgres"),
                        o.getOrDefault("pg-password", "postgres"))
                : EmbeddedPostgresServer.durable();
             KafkaServer kafka = o.containsKey("bootstrap") ? ExternalServers.kafka(o.get("bootstrap"))
                     : EmbeddedKafkaServer.start();
             ServiceProcess service = ServiceProcess.start(ServiceProcess.defaultJar(),
                     o.containsKey("service-jvm-options") ? List.of(o.get("service-jvm-options").split(" "))
                             : List.of(),
                     List.of("--spring.r2dbc.url=" + postgres.r2dbcUrl(),
                             "--spring.r2dbc.username=" + postgres.username(),
                             "--spring.r2dbc.password=" + postgres.password(),
                             "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                             "--dispatcher.schema=" + schema,
                             "--dispatcher.security.tokens[0].name=gatling",
                             "--dispatcher.security.tokens[0].sha256=" + sha256(token),
                             "--dispatcher.security.tokens[0].roles=PRODUCER"),
                     Path.of("target", "ingest-service.log"))) {
            System.out.printf(Locale.ROOT, "service: java -jar, pid %d, %s; PostgreSQL %s, Kafka %s%n",
                    service.pid(), service.baseUrl, postgres, kafka);

            long warmupStarted = System.nanoTime();
            warmUp(service.baseUrl, token, warmup, concurrency);
            double ceiling = InsertCeiling.measure(postgres, concurrency, ceilingTime);
            System.out.printf(Locale.ROOT, "insert ceiling: %.0f one-row commits/s at %d connections%n", ceiling,
                    concurrency);

            Map<IngestLoad.Scenario, IngestLoad.Figures> figures = new LinkedHashMap<>();
            List<String> replayIds = List.of();
            for (IngestLoad.Scenario scenario : scenarios) {
                int clients = scenario == IngestLoad.Scenario.BATCH ? batchConcurrency : concurrency;
                if (scenario == IngestLoad.Scenario.REPLAY && replayIds.isEmpty()) {
                    throw new IllegalArgumentException("replay repeats the ids of a single run: run single first");
                }
                IngestLoad.config = new IngestLoad.Config(service.baseUrl, token, scenario, clients, duration,
                        replayIds);
                IngestLoad.Figures f = new IngestLoad.Figures();
                IngestLoad.figures = f;
                Duration cpuBefore = service.cpu();
                int exit = io.gatling.app.Gatling$.MODULE$.fromArgs(new String[] {
                        "--simulation", IngestSimulation.class.getName(), "--no-reports",
                        "--results-folder", Path.of("target", "gatling").toAbsolutePath().toString(),
                        "--run-description", scenario.name().toLowerCase(Locale.ROOT) + " x" + clients});
                Duration cpu = service.cpu().minus(cpuBefore);
                figures.put(scenario, f);
                System.out.printf(Locale.ROOT, "%s: %.0f requests/s (%.0f messages/s), p50 %d ms, p99 %d ms, "
                                + "failed %d of %d, statuses %s, service CPU %.2f cores (Gatling exit %d)%n",
                        scenario.name().toLowerCase(Locale.ROOT), f.requests.get() / f.seconds(),
                        f.messages.get() / f.seconds(), f.percentile(50), f.percentile(99), f.failed.get(),
                        f.requests.get(), f.statuses, cpu.toNanos() / 1e9 / f.seconds(), exit);
                if (scenario == IngestLoad.Scenario.SINGLE) {
                    replayIds = List.copyOf(f.accepted);
                }
            }

            Set<String> accepted = new HashSet<>();
            figures.values().forEach(f -> accepted.addAll(f.accepted));
            long[] check = kafkaCheck(postgres, schema, kafka, accepted);

            IngestLoad.Figures headline = figures.getOrDefault(IngestLoad.Scenario.SINGLE,
                    figures.values().iterator().next());
            double reqPerS = headline.requests.get() / headline.seconds();
            result.put("name", "gatling-ingest");
            result.put("req_per_s", round(reqPerS));
            result.put("p99_ms", headline.percentile(99));
            result.put("failed", figures.values().stream().mapToLong(f -> f.failed.get()).sum());
            result.put("lost", check[0]);
            result.put("duplicates", check[1]);
            result.put("unanswered", check[2]);
            result.put("pg_insert_ceiling_per_s", round(ceiling));
            result.put("ratio_to_ceiling", Math.round(reqPerS / ceiling * 100) / 100.0);
            for (var entry : figures.entrySet()) {
                IngestLoad.Figures f = entry.getValue();
                String name = entry.getKey().name().toLowerCase(Locale.ROOT);
                result.put(name + "_req_per_s", round(f.requests.get() / f.seconds()));
                result.put(name + "_msgs_per_s", round(f.messages.get() / f.seconds()));
                result.put(name + "_p99_ms", f.percentile(99));
            }
            result.put("concurrency", concurrency);
            result.put("batch_concurrency", batchConcurrency);
            result.put("batch_size", IngestLoad.BATCH_SIZE);
            result.put("duration_s", duration.toSeconds());
            result.put("warmup_s", warmup.toSeconds());
            result.put("service", "java -jar (own JVM)");
            result.put("pg_fsync", fsync(postgres));
            result.put("brokers", 1);
            result.put("ordering", "per-key");
            result.put("keys", IngestLoad.KEYS);
            result.put("payload_bytes", IngestLoad.payloadBytes());
            System.out.printf(Locale.ROOT, "(warm-up, ceiling and scenarios took %.0f s)%n",
                    (System.nanoTime() - warmupStarted) / 1e9);
        }
        return result;
    }

    /**
     * Untimed load at the benchmark's concurrency (singles, and one batch in twenty), to a topic the check leaves
     * out, printing the rate of every 10 s so the warm-up's length is visible.
     */
    private static void warmUp(String baseUrl, String token, Duration length, int concurrency)
            throws InterruptedException {
        if (length.isZero()) {
            return;
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicLong done = new AtomicLong();
        long deadline = System.nanoTime() + length.toNanos();
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            senders.add(Thread.ofVirtual().start(() -> {
                for (long i = 0; System.nanoTime() < deadline; i++) {
                    String body = i % 20 == 19
                            ? java.util.stream.Stream.generate(() -> UUID.randomUUID().toString()).limit(10)
                                    .map(id -> IngestLoad.message(id, "gatling.warmup"))
                                    .collect(Collectors.joining(",", "[", "]"))
                            : IngestLoad.message(UUID.randomUUID().toString(), "gatling.warmup");
                    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl
                                    + (i % 20 == 19 ? "/v1/messages/batch" : "/v1/messages")))
                            .header("Content-Type", "application/json")
                            .header("Authorization", "Bearer " + token)
                            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                    try {
                        client.send(request, HttpResponse.BodyHandlers.discarding());
                        done.incrementAndGet();
                    } catch (Exception e) {
                        // counted as not done
                    }
                }
            }));
        }
        long started = System.nanoTime();
        long last = 0;
        long lastAt = started;
        StringBuilder rates = new StringBuilder();
        while (System.nanoTime() < deadline) {
            Thread.sleep(Math.min(10_000, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            long now = done.get();
            long at = System.nanoTime();
            rates.append(String.format(Locale.ROOT, " %.0fs:%.0f/s", (at - started) / 1e9,
                    (now - last) / ((at - lastAt) / 1e9)));
            last = now;
            lastAt = at;
        }
        for (Thread sender : senders) {
            sender.join();
        }
        System.out.println("warm-up (requests/s per 10 s):" + rates);
    }

    /**
     * Waits for the outbox to drain, then reads the topic: {lost, duplicates, stored but not answered} for
     * {@code accepted}.
     */
    private static long[] kafkaCheck(PostgresServer postgres, String schema, KafkaServer kafka, Set<String> accepted)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + schema
                        + ".outbox_message WHERE status IN ('PENDING', 'RETRY_SCHEDULED')")) {
                    r.next();
                    if (r.getLong(1) == 0 || System.nanoTime() > deadline) {
                        break;
                    }
                }
                Thread.sleep(200);
            }
        }
        Map<String, Integer> seen = new HashMap<>();
        for (ConsumerRecord<String, byte[]> r : kafka.consume(IngestLoad.TOPIC, accepted.size(),
                Duration.ofSeconds(60))) {
            var header = r.headers().lastHeader("message-id");
            if (header != null) {
                seen.merge(new String(header.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
        }
        long lost = accepted.stream().filter(id -> !seen.containsKey(id)).count();
        // ids on the topic that no answer reported as accepted: requests that failed on the client after the
        // service stored them, or a harness that lost answers; counted, never folded into the figures
        long unanswered = seen.keySet().stream().filter(id -> !accepted.contains(id)).count();
        long duplicates = seen.values().stream().mapToLong(n -> n - 1).sum();
        System.out.printf(Locale.ROOT, "Kafka check: %d accepted, %d on the topic, %d lost, %d duplicates, %d stored"
                + " but not answered as accepted%n", accepted.size(), seen.size(), lost, duplicates, unanswered);
        return new long[] {lost, duplicates, unanswered};
    }

    private static boolean fsync(PostgresServer postgres) throws Exception {
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery(
                     "SELECT current_setting('fsync') = 'on' AND current_setting('synchronous_commit') = 'on'")) {
            r.next();
            return r.getBoolean(1);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            String name = args[i].substring(2);
            if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                o.put(name, args[++i]);
            } else {
                o.put(name, "true");
            }
        }
        return o;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
