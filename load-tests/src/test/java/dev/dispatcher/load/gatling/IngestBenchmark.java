package dev.dispatcher.load.gatling;

import dev.dispatcher.load.ExternalServers;
import dev.dispatcher.load.RelayBenchmark;
import dev.dispatcher.load.ServiceProcess;
import dev.dispatcher.testkit.EmbeddedKafkaServer;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The HTTP ingest benchmark ({@code gatling-ingest}), run the way users deploy: the service in its own JVM
 * ({@code java -jar} on dispatcher-app's exec jar, {@link ServiceProcess}) on a durable PostgreSQL and a Kafka
 * broker, and the load generator (Gatling, {@link IngestSimulation}) here, in another JVM. In order:
 * <ol>
 *   <li>warm-up, through Gatling so that both JVMs are warm: untimed singles with one batch of
 *       {@value IngestLoad#WARMUP_BATCH_SIZE} in twenty for {@code --warmup} seconds, to a topic of its own,
 *       printing the rate of every 10 s (a cold service answers at a fifth of its warm rate);</li>
 *   <li>the insert ceiling: one-row INSERT transactions into the real table at the load's concurrency
 *       ({@link InsertCeiling}, the reference of {@code ../shared/bench/README.md});</li>
 *   <li>Gatling, closed model: {@code single} (fresh ids), {@code batch} ({@value IngestLoad#BATCH_SIZE} per
 *       request) and {@code replay} (singles repeating ids the single run had accepted: each must be a 200);</li>
 *   <li>the Kafka check: once the outbox drained, every accepted id is looked for on the topic (lost) and
 *       counted (duplicates), from the records, never from the service's figures.</li>
 * </ol>
 * The relay runs throughout. The last line is {@code RESULT} and the JSON object DESIGN.md fixes.
 *
 * <p>{@code health-flood} (not in the default scenarios) runs the single-message load again while {@code
 * --health-clients} (200) more clients call the public {@code /actuator/health} without credentials, as fast as it
 * answers, and reports its request rate as a ratio to the {@code single} run's ({@code health_flood_ratio}; run
 * {@code single} first, in the same run), the ingest answers other than {@code 202} ({@code health_flood_failed},
 * of which {@code health_flood_503}) and the health calls answered a second.
 *
 * <p>Options: {@code --concurrency 32}, {@code --batch-concurrency 16}, {@code --duration 30} (s per scenario),
 * {@code --warmup 120} (s), {@code --ceiling 15} (s), {@code --scenarios single,batch,replay[,health-flood]},
 * {@code --health-clients 200}, {@code --health-addresses 1} (the client addresses the health callers come from,
 * {@code 127.0.1.1} up: one address is throttled by the service's per-address health limit, 200 measure what the
 * health answers themselves cost), {@code --quick} (a
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
        Duration warmup = Duration.ofSeconds(Long.parseLong(o.getOrDefault("warmup", quick ? "5" : "120")));
        Duration ceilingTime = Duration.ofSeconds(Long.parseLong(o.getOrDefault("ceiling", quick ? "3" : "15")));
        List<IngestLoad.Scenario> scenarios = Arrays.stream(o.getOrDefault("scenarios", "single,batch,replay")
                .split(",")).map(s -> IngestLoad.Scenario.valueOf(s.trim().toUpperCase(Locale.ROOT).replace('-', '_')))
                .toList();
        int healthClients = Integer.parseInt(o.getOrDefault("health-clients", "200"));
        int healthAddresses = Integer.parseInt(o.getOrDefault("health-addresses", "1"));
        if (healthAddresses < 1 || healthAddresses > 254) {
            throw new IllegalArgumentException("--health-addresses takes 1..254, not " + healthAddresses);
        }

        String token = "dsp_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(24));
        String schema = PostgresServer.uniqueSchemaName("gatling");
        String run = schema.substring("gatling_".length());
        String topic = IngestLoad.TOPIC_PREFIX + run;
        String warmupTopic = "gatling.warmup." + run;
        Map<String, Object> result = new LinkedHashMap<>();
        try (PostgresServer postgres = o.containsKey("pg-url")
                ? ExternalServers.postgres(o.get("pg-url"), o.getOrDefault("pg-user", "postgres"),
                        o.getOrDefault("pg-password", "postgres"))
                : EmbeddedPostgresServer.durable();
             // after the service has stopped: the run's tables would otherwise stay on an external server, and
             // autovacuum of earlier runs' tables takes CPU from the next run's measurement
             AutoCloseable dropSchema = () -> postgres.dropSchema(schema);
             KafkaServer kafka = o.containsKey("bootstrap") ? ExternalServers.kafka(o.get("bootstrap"))
                     : EmbeddedKafkaServer.start();
             // after the service has stopped, as the relay modes do: on an external broker every run's topics stayed
             AutoCloseable dropTopics = () -> {
                 try {
                     kafka.deleteTopics(List.of(warmupTopic, topic));
                 } catch (RuntimeException e) { // best effort: the run's figures stand
                     System.out.println("could not delete topics: " + e.getMessage());
                 }
             };
             ServiceProcess service = ServiceProcess.start(ServiceProcess.defaultJar(),
                     o.containsKey("service-jvm-options") ? List.of(o.get("service-jvm-options").split(" "))
                             : List.of(),
                     Stream.concat(ServiceProcess.serverArguments(postgres, kafka, schema).stream(), Stream.of(
                             "--dispatcher.security.tokens[0].name=gatling",
                             "--dispatcher.security.tokens[0].sha256=" + sha256(token),
                             "--dispatcher.security.tokens[0].roles=PRODUCER")).toList(),
                     Path.of("target", "ingest-service.log"))) {
            System.out.printf(Locale.ROOT, "service: java -jar, pid %d, %s; PostgreSQL %s, Kafka %s%n",
                    service.pid(), service.baseUrl, postgres, kafka);
            // the broker creates no topic on first use (as production brokers do not), and the relay holds back a
            // missing topic's rows: the Kafka check would count every accepted message as lost
            kafka.createTopic(warmupTopic, 6);
            kafka.createTopic(topic, 6);

            long warmupStarted = System.nanoTime();
            if (!warmup.isZero()) {
                // through Gatling itself, so the load generator's code is as warm as the service's
                IngestLoad.Figures w = gatling(new IngestLoad.Config(service.baseUrl, token,
                        IngestLoad.Scenario.WARMUP, concurrency, warmup, List.of(), warmupTopic, 0, 1), service);
                System.out.println("warm-up (requests/s per 10 s):" + w.ratesPer(Duration.ofSeconds(10)));
            }
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
                IngestLoad.Figures f = gatling(new IngestLoad.Config(service.baseUrl, token, scenario, clients,
                        duration, replayIds, topic, healthClients, healthAddresses), service);
                figures.put(scenario, f);
                if (scenario == IngestLoad.Scenario.SINGLE) {
                    replayIds = List.copyOf(f.accepted);
                }
            }

            Set<String> accepted = new HashSet<>();
            figures.values().forEach(f -> accepted.addAll(f.accepted));
            long[] check = kafkaCheck(postgres, schema, kafka, topic, accepted);

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
                result.put(name + "_service_cpu_cores", round(f.serviceCores));
                result.put(name + "_loadgen_cpu_cores", round(f.loadCores));
                result.put(name + "_pg_cpu_cores", round(f.postgresCores));
            }
            IngestLoad.Figures flood = figures.get(IngestLoad.Scenario.HEALTH_FLOOD);
            IngestLoad.Figures single = figures.get(IngestLoad.Scenario.SINGLE);
            if (flood != null) {
                double floodRate = flood.requests.get() / flood.seconds();
                result.put("health_clients", healthClients);
                result.put("health_addresses", healthAddresses);
                result.put("health_flood_ratio", single == null ? 0
                        : Math.round(floodRate / (single.requests.get() / single.seconds()) * 100) / 100.0);
                result.put("health_flood_failed", flood.failed.get());
                result.put("health_flood_503", flood.answered(503));
                result.put("health_calls_per_s", round(flood.healthCalls.get() / flood.seconds()));
                System.out.printf(Locale.ROOT, "health flood: ingest %.0f requests/s beside %d health clients"
                        + " (%.0f health calls/s, statuses %s), ratio to the single run %s%n", floodRate,
                        healthClients, flood.healthCalls.get() / flood.seconds(), flood.healthStatuses,
                        result.get("health_flood_ratio"));
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
     * One Gatling run of {@code config}: returns its figures with the CPU each process used meanwhile, printing a
     * line of them.
     */
    private static IngestLoad.Figures gatling(IngestLoad.Config config, ServiceProcess service) {
        IngestLoad.config = config;
        IngestLoad.Figures f = new IngestLoad.Figures();
        IngestLoad.figures = f;
        Duration cpuBefore = service.cpu();
        Duration loadCpuBefore = ProcessCpu.self();
        Duration pgCpuBefore = ProcessCpu.postgres();
        int exit = io.gatling.app.Gatling$.MODULE$.fromArgs(new String[] {
                "--simulation", IngestSimulation.class.getName(), "--no-reports",
                "--results-folder", Path.of("target", "gatling").toAbsolutePath().toString(),
                "--run-description", config.scenario().name().toLowerCase(Locale.ROOT) + " x" + config.concurrency()});
        f.cpu(service.cpu().minus(cpuBefore), ProcessCpu.self().minus(loadCpuBefore),
                ProcessCpu.postgres().minus(pgCpuBefore));
        System.out.printf(Locale.ROOT, "%s: %.0f requests/s (%.0f messages/s), p50 %d ms, p99 %d ms, "
                        + "failed %d of %d, statuses %s; CPU cores: service %.2f, load generator %.2f, "
                        + "PostgreSQL %.2f (Gatling exit %d)%n",
                config.scenario().name().toLowerCase(Locale.ROOT), f.requests.get() / f.seconds(),
                f.messages.get() / f.seconds(), f.percentile(50), f.percentile(99), f.failed.get(),
                f.requests.get(), f.statuses, f.serviceCores, f.loadCores, f.postgresCores, exit);
        return f;
    }

    /**
     * Waits for the outbox to drain, then reads the topic: {lost, duplicates, stored but not answered} for
     * {@code accepted}.
     */
    private static long[] kafkaCheck(PostgresServer postgres, String schema, KafkaServer kafka, String topic,
            Set<String> accepted) throws Exception {
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
        for (ConsumerRecord<String, byte[]> r : kafka.consume(topic, accepted.size(),
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
        return v < 10 ? Math.round(v * 100) / 100.0 : Math.round(v * 10) / 10.0;
    }

    static String sha256(String token) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }
}
