package dev.dispatcher.load.gatling;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.BenchLog;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.RampUp;
import dev.dispatcher.load.bench.ServiceAccess;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.bench.ServiceWarmUp;
import dev.dispatcher.load.mode.Keys;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.GatlingIngest;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The HTTP ingest benchmark ({@code gatling-ingest}), run the way users deploy: the service in its own JVM
 * ({@code java -jar} on dispatcher-app's exec jar, {@link ServiceProcess}) on a durable PostgreSQL and a Kafka
 * broker, and the load generator (Gatling, {@link IngestSimulation}) here, in another JVM. In order:
 * <ol>
 *   <li>before the service is launched, the load generator's warm-up: the warm-up load for {@code --load-warmup}
 *       seconds against {@link IngestStub}, which answers as the service does with no work, so that the fresh
 *       start below measures a cold service driven by a warm generator;</li>
 *   <li>warm-up, through Gatling so that both JVMs are warm: untimed singles with one batch of
 *       {@value IngestLoad#WARMUP_BATCH_SIZE} in twenty for {@code --warmup} seconds, to a topic of its own,
 *       printing the rate of every 10 s;</li>
 *   <li>the insert ceiling: one-row INSERT transactions into the real table at the load's concurrency
 *       ({@link InsertCeiling}, the reference of {@code load-tests/reference/README.md});</li>
 *   <li>Gatling, closed model: {@code single} (fresh ids), {@code batch} ({@value IngestLoad#BATCH_SIZE} per
 *       request) and {@code replay} (singles repeating ids the single run had accepted: each must be a 200);</li>
 *   <li>the Kafka check: once the outbox drained, every accepted id is looked for on the topic (lost) and
 *       counted (duplicates), from the records, never from the service's figures;</li>
 *   <li>with {@code --drain-rows}, untimed relay drain rounds ({@link ServiceWarmUp}), and with {@code
 *       --inbox-records}, untimed rounds of records through an inbox webhook consumer ({@link InboxRounds}, configured
 *       on the service from its launch), so that a training run of the AOT cache ({@code load-tests/aot/train.sh})
 *       profiles the relay's drain and the inbox as well as ingest.</li>
 * </ol>
 * The first load after the launch (the warm-up, or the first scenario when there is none), started as soon as the
 * service is healthy, also says how fast the fresh service was: its answers in each second from the launch of the service's JVM ({@link RampUp}: {@code
 * time_to_80pct_s}, {@code startup_s}, the steady rate of its last half).
 * The relay runs throughout. The last line is {@code RESULT} and the JSON object docs/benchmarks.md publishes ({@link
 * GatlingIngest}).
 *
 * <p>{@code health-flood} (not in the default scenarios) runs the single-message load again while {@code
 * --health-clients} more clients call the public {@code /actuator/health} without credentials, as fast as it
 * answers, and reports its request rate as a ratio to the {@code single} run's ({@code health_flood_ratio}; run
 * {@code single} first, in the same run), the ingest answers other than {@code 202} ({@code health_flood_failed},
 * of which {@code health_flood_503}) and the health calls answered a second.
 *
 * <p>Options and their defaults: {@link IngestOptions}; the jar is dispatcher-app's exec jar (build it first) or
 * {@code -Ddispatcher.service.jar}.
 */
public final class IngestBenchmark {

    private IngestBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        IngestOptions options;
        try {
            options = IngestOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        BenchLog.startRun();
        System.out.println(run(options).line());
        System.exit(0);
    }

    /** Runs the benchmark and returns its RESULT. */
    static GatlingIngest run(IngestOptions o) throws Exception {
        ServiceAccess access = ServiceAccess.random();
        // the environment drops the schema and deletes the topics after the service has stopped, also on external
        // servers: autovacuum of earlier runs' tables would take CPU from the next run's measurement
        try (BenchEnvironment env = BenchEnvironment.start(o.servers())) {
            String schema = env.serviceSchema("gatling");
            String run = schema.substring("gatling_".length());
            String topic = IngestLoad.TOPIC_PREFIX + run;
            String warmupTopic = "gatling.warmup." + run;
            PostgresServer postgres = env.postgres();
            KafkaServer kafka = env.kafka();
            // the broker creates no topic on first use (as production brokers do not), and the relay holds back a
            // missing topic's rows: the Kafka check would count every accepted message as lost
            env.createTopic(warmupTopic, 6);
            env.createTopic(topic, 6);
            warmLoadGenerator(o);
            List<String> arguments = new ArrayList<>(ServiceAccess.serverArguments(postgres, kafka, schema));
            // null without --inbox-records: no consumer, no receiver; else the receiver outlives the service, whose
            // shutdown finishes the webhook calls in flight
            try (InboxRounds inbox = o.inboxRecords() > 0 ? InboxRounds.start(env, run) : null) {
                if (inbox != null) {
                    arguments.addAll(inbox.serviceArguments());
                }
                ServiceProcess.Launch jar = new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar());
                long launched = System.nanoTime();
                try (ServiceProcess service = ServiceProcess.start(jar, o.serviceJvmOptions(), arguments, access,
                        BenchLog.serviceLog("ingest-service"))) {
                    String baseUrl = service.client().baseUrl();
                    System.out.printf(Locale.ROOT, "service: java -jar, pid %d, %s, log %s; PostgreSQL %s, Kafka"
                            + " %s%n", service.pid(), baseUrl, service.log(), postgres, kafka);
                    Started started = new Started(launched, (System.nanoTime() - launched) / 1e9,
                            service.cpu().toNanos() / 1e9);
                    GatlingIngest result = measure(o, env, service, access, schema, topic, warmupTopic, started);
                    train(o, env, service, schema, run, inbox);
                    return result;
                }
            }
        }
    }

    /**
     * The untimed rounds after the measurement, for the AOT cache's training run: relay drains of {@code
     * --drain-rows} each, then {@code --inbox-records} in all through {@code inbox} (null: none).
     */
    private static void train(IngestOptions o, BenchEnvironment env, ServiceProcess service, String schema,
            String run, InboxRounds inbox) throws Exception {
        if (o.drainRows() > 0) {
            JitWarmUp.Result drained = ServiceWarmUp.rounds(env, List.of(service.client()),
                    JitWarmUp.service(service.client()), schema, "gatling.drain." + run,
                    new Keys.Spread(IngestLoad.KEYS).sqlExpression(), IngestLoad.payloadBytes(), o.drainRows());
            System.out.printf(Locale.ROOT, "relay drain rounds: %d rows in %d rounds%n", drained.rows(),
                    drained.rounds());
        }
        if (inbox != null) {
            JitWarmUp.Result handled = inbox.run(service, o.inboxRecords());
            System.out.printf(Locale.ROOT, "inbox rounds: %d records in %d rounds, each id answered 2xx by the"
                    + " receiver (%d of them more than once)%n", handled.rows(), handled.rounds(),
                    inbox.receiver().duplicateEffects());
        }
    }

    /**
     * The warm-up load against {@link IngestStub} for {@code --load-warmup} seconds, before the service exists: Gatling
     * and the HTTP client it drives are compiled when the service's first second is counted.
     */
    private static void warmLoadGenerator(IngestOptions o) throws Exception {
        if (o.loadWarmup().isZero()) {
            return;
        }
        try (IngestStub stub = IngestStub.start()) {
            IngestLoad.Figures f = new IngestLoad.Figures();
            int exit = gatling(new IngestLoad.Config(stub.baseUrl(), "stub", IngestLoad.Scenario.WARMUP,
                    o.concurrency(), o.loadWarmup(), List.of(), "stub", 0, 1), f);
            System.out.printf(Locale.ROOT, "load generator warm-up against a stub: %d requests, failed %d, requests/s"
                    + " per 5 s:%s (Gatling exit %d)%n", f.requests.get(), f.failed.get(),
                    f.ratesPer(Duration.ofSeconds(5)), exit);
        }
    }

    /** When the service's JVM was launched ({@code System.nanoTime()}), and the wall and CPU seconds until healthy. */
    private record Started(long launchedNanos, double seconds, double cpuSeconds) {
    }

    private static GatlingIngest measure(IngestOptions o, BenchEnvironment env, ServiceProcess service,
            ServiceAccess access, String schema, String topic, String warmupTopic, Started started)
            throws Exception {
        String baseUrl = service.client().baseUrl();
        long warmupStarted = System.nanoTime();
        IngestLoad.Figures first = null;
        if (!o.warmup().isZero()) {
            // through Gatling itself, so the load generator's code is as warm as the service's
            IngestLoad.Figures w = gatling(new IngestLoad.Config(baseUrl, access.token(), IngestLoad.Scenario.WARMUP,
                    o.concurrency(), o.warmup(), List.of(), warmupTopic, 0, 1), service);
            System.out.println("warm-up (requests/s per 10 s):" + w.ratesPer(Duration.ofSeconds(10)));
            first = w;
        }
        double ceiling = InsertCeiling.measure(env.postgres(), o.concurrency(), o.ceiling());
        System.out.printf(Locale.ROOT, "insert ceiling: %.0f one-row commits/s at %d connections%n", ceiling,
                o.concurrency());

        Map<IngestLoad.Scenario, IngestLoad.Figures> figures = new LinkedHashMap<>();
        List<String> replayIds = List.of();
        for (IngestLoad.Scenario scenario : o.scenarios()) {
            int clients = scenario == IngestLoad.Scenario.BATCH ? o.batchConcurrency() : o.concurrency();
            IngestLoad.Figures f = gatling(new IngestLoad.Config(baseUrl, access.token(), scenario, clients,
                    o.duration(), replayIds, topic, o.healthClients(), o.healthAddresses()), service);
            figures.put(scenario, f);
            first = first == null ? f : first;
            if (scenario == IngestLoad.Scenario.SINGLE) {
                replayIds = List.copyOf(f.accepted);
            }
        }

        // the first load after the launch (the warm-up, or the first scenario without one): how soon it was at speed
        RampUp ramp = RampUp.of(first.eachSecondSince(started.launchedNanos()));
        System.out.println("fresh start: answers per second from the launch: " + ramp.eachSecond());
        System.out.printf(Locale.ROOT, "fresh start: healthy %.1f s after the launch (%.1f s of CPU), load from %d s,"
                + " steady %.0f requests/s, 0.8 of it first reached %d s after the launch%n", started.seconds(),
                started.cpuSeconds(), ramp.firstWorkS(),
                ramp.steadyPerS(), ramp.timeTo80pctS());
        Set<String> accepted = new HashSet<>();
        figures.values().forEach(f -> accepted.addAll(f.accepted));
        long[] check = kafkaCheck(env.postgres(), schema, env.kafka(), topic, accepted);

        IngestLoad.Figures headline = figures.getOrDefault(IngestLoad.Scenario.SINGLE,
                figures.values().iterator().next());
        double reqPerS = headline.requests.get() / headline.seconds();
        List<GatlingIngest.Scenario> scenarios = new ArrayList<>();
        figures.forEach((scenario, f) -> scenarios.add(new GatlingIngest.Scenario(
                scenario.name().toLowerCase(Locale.ROOT), round(f.requests.get() / f.seconds()),
                round(f.messages.get() / f.seconds()), f.percentile(99), round(f.serviceCores), round(f.loadCores),
                round(f.postgresCores))));
        IngestLoad.Figures flood = figures.get(IngestLoad.Scenario.HEALTH_FLOOD);
        IngestLoad.Figures single = figures.get(IngestLoad.Scenario.SINGLE);
        GatlingIngest.HealthFlood healthFlood = null;
        if (flood != null) {
            double floodRate = flood.requests.get() / flood.seconds();
            double ratio = single == null ? 0
                    : Math.round(floodRate / (single.requests.get() / single.seconds()) * 100) / 100.0;
            healthFlood = new GatlingIngest.HealthFlood(o.healthClients(), o.healthAddresses(), ratio,
                    flood.failed.get(), flood.answered(503), round(flood.healthCalls.get() / flood.seconds()));
            System.out.printf(Locale.ROOT, "health flood: ingest %.0f requests/s beside %d health clients from %d"
                    + " address(es) (%.0f health calls/s, statuses %s), ratio to the single run %s%n", floodRate,
                    o.healthClients(), o.healthAddresses(), flood.healthCalls.get() / flood.seconds(),
                    flood.healthStatuses, ratio);
        }
        System.out.printf(Locale.ROOT, "(warm-up, ceiling and scenarios took %.0f s)%n",
                (System.nanoTime() - warmupStarted) / 1e9);
        return new GatlingIngest(round(reqPerS), headline.percentile(99),
                figures.values().stream().mapToLong(f -> f.failed.get()).sum(), check[0], check[1], check[2],
                round(ceiling), Math.round(reqPerS / ceiling * 100) / 100.0, scenarios, healthFlood, o.concurrency(),
                o.batchConcurrency(), IngestLoad.BATCH_SIZE, o.duration().toSeconds(), o.warmup().toSeconds(),
                new GatlingIngest.FreshStart(round(started.seconds()), round(started.cpuSeconds()), ramp.firstWorkS(),
                        ramp.timeTo80pctS(), round(ramp.steadyPerS()), String.join(" ", o.serviceJvmOptions())),
                "java -jar (own JVM)", env.fsync(), Common.BROKERS, "per-key", IngestLoad.KEYS,
                IngestLoad.payloadBytes());
    }

    /**
     * One Gatling run of {@code config}: returns its figures with the CPU each process used meanwhile, printing a
     * line of them.
     */
    private static IngestLoad.Figures gatling(IngestLoad.Config config, ServiceProcess service) {
        IngestLoad.Figures f = new IngestLoad.Figures();
        Duration cpuBefore = service.cpu();
        Duration loadCpuBefore = ProcessCpu.self();
        Duration pgCpuBefore = ProcessCpu.postgres();
        int exit = gatling(config, f);
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

    /** One Gatling run of {@code config}, recording into {@code figures}; returns Gatling's exit code. */
    private static int gatling(IngestLoad.Config config, IngestLoad.Figures figures) {
        IngestLoad.config = config;
        IngestLoad.figures = figures;
        return io.gatling.app.Gatling$.MODULE$.fromArgs(new String[] {
                "--simulation", IngestSimulation.class.getName(), "--no-reports",
                "--results-folder", Path.of("target", "gatling").toAbsolutePath().toString(),
                "--run-description", config.scenario().name().toLowerCase(Locale.ROOT) + " x" + config.concurrency()});
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

    private static double round(double v) {
        return v < 10 ? Math.round(v * 100) / 100.0 : Math.round(v * 10) / 10.0;
    }
}
