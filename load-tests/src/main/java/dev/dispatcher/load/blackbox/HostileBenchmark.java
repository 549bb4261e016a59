package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.ServiceAccess;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.Hostile;
import dev.dispatcher.load.mode.Keys;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.IngestHostile;
import dev.dispatcher.load.result.Round;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * {@code hostile} (issue 50): the service jar in {@code -Xmx512m} (unless {@code
 * -Ddispatcher.bench.service-jvm-options} says otherwise) with an API token and an operator's HTTP Basic user, and
 * hostile clients beside well-behaved producers ({@link IngestProducers}, from {@code 127.0.0.1}). The producers
 * warm the service up in rounds of {@code --warmup-s} until its compiler settles ({@link JitWarmUp}); then each
 * attack's phase measures the figure it protects without the attack, with it and without it again
 * ({@link AttackWindows}), in the same run:
 * <ol>
 *   <li>slow bodies ({@link SlowBodies}, from {@code 127.0.0.10}) against the producers' rate; each slow body's end
 *       (target: {@code 408} within the body timeout, ratio at least 0.9);</li>
 *   <li>token bombs ({@link TokenBombs}, from {@code 127.0.0.11}) against one producer's p99 (target under 100 ms),
 *       and how fast the bombs were answered ({@code 413} or {@code 400});</li>
 *   <li>{@code POST /%761/relay/pause} ({@code text/plain}, the operator's credentials) must not answer 2xx nor pause
 *       the relay ({@code GET /v1/stats});</li>
 *   <li>a guesser's wrong passwords for the user from {@code 127.0.0.2}, then the user's right one from
 *       {@code 127.0.0.3}, which must answer {@code 200};</li>
 *   <li>a health flood ({@link HealthFlood}, from {@code 127.0.0.12}) against the producers' rate (target 0.9).</li>
 * </ol>
 * Linux routes all of {@code 127/8} to loopback, so each client address is a socket bound to it. Last, every accepted
 * message is looked for on the topic. RESULT {@code ingest-hostile}.
 */
public final class HostileBenchmark {

    static final String DEFAULT_JVM_OPTIONS = "-Xmx512m";
    static final String OPERATOR = "hostile-operator";
    static final InetAddress PRODUCERS = loopback(1);
    static final InetAddress GUESSER = loopback(2);
    static final InetAddress USER = loopback(3);
    static final InetAddress SLOW_BODIES = loopback(10);
    static final InetAddress BOMBS = loopback(11);
    static final InetAddress HEALTH_FLOOD = loopback(12);
    /** The encoded operator path: {@code %76} is {@code v}. */
    static final String ENCODED_PAUSE = "/%761/relay/pause";
    /** How long past the body timeout the harness waits for a slow body's answer before it closes it itself. */
    static final Duration SLOW_BODY_GIVEN_UP_AFTER = Duration.ofSeconds(10);

    private HostileBenchmark() {
    }

    public static IngestHostile run(BenchEnvironment env, Hostile o) throws Exception {
        String schema = env.serviceSchema("hostile");
        String topic = "hostile-" + schema;
        env.createTopic(topic, 3);
        List<String> jvmOptions = Services.jvmOptions(DEFAULT_JVM_OPTIONS);
        String password = ServiceAccess.random().token();
        List<String> arguments = new ArrayList<>(List.of("--dispatcher.security.users[0].name=" + OPERATOR,
                "--dispatcher.security.users[0].password={noop}" + password,
                "--dispatcher.security.users[0].roles=OPERATOR"));
        if (o.bodyTimeout() != null) {
            arguments.add("--dispatcher.ingest.body-timeout=" + o.bodyTimeout().toMillis() + "ms");
        }
        arguments.addAll(o.serviceArgs());
        Duration bodyTimeout = o.effectiveBodyTimeout();
        System.out.printf(Locale.ROOT, "hostile: dispatcher.ingest.body-timeout %d ms (%s), windows of %d s, %d"
                + " producers%n", bodyTimeout.toMillis(), o.bodyTimeout() == null ? "the service's default"
                : "--body-timeout-ms", o.window().toSeconds(), o.producers());
        try (ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                jvmOptions, schema, arguments, "hostile-service");
             Confirmations seen = new Confirmations(env.kafka().bootstrapServers(), topic, 3,
                     Confirmations.Fetch.THROUGHPUT)) {
            ServiceClient client = service.client();
            RawHttp.Target target = new RawHttp.Target(PRODUCERS, URI.create(client.baseUrl()).getPort(),
                    client.access().token(), OPERATOR, password);
            IngestProducers producers = new IngestProducers(target, PRODUCERS, topic);
            JitWarmUp.Result warm = o.warmup().isPositive() ? JitWarmUp.untilCompiled("ingest",
                    JitWarmUp.service(client), () -> producers.run(o.producers(), o.warmup()).accepted(),
                    o.quick() ? 1 : JitWarmUp.MAX_ROUNDS) : JitWarmUp.Result.NONE;
            IngestHostile.SlowBodies slow = slowBodies(o, target, producers, bodyTimeout);
            IngestHostile.TokenBomb bomb = tokenBombs(o, target, producers);
            IngestHostile.Probes probes = probes(o, target, client);
            IngestHostile.HealthFlood health = healthFlood(o, target, producers);

            boolean all = seen.awaitAll(producers.accepted(), Duration.ofMinutes(2));
            long lost = seen.lost(producers.accepted());
            long duplicates = seen.duplicates();
            System.out.printf(Locale.ROOT, "Kafka check: %d accepted, %d ids on the topic, %d lost, %d duplicates%s%n",
                    producers.accepted().size(), seen.distinct(), lost, duplicates, all ? "" : " (waited 2 min)");
            List<String> missed = HostileTargets.missed(slow, bomb, probes, health, lost);
            System.out.println("hostile: targets missed: " + (missed.isEmpty() ? "none" : String.join(", ", missed)));
            return new IngestHostile(Common.of(env.fsync(), Ordering.PER_KEY.text(), Keys.DEFAULT,
                    IngestProducers.payloadBytes(), warm.rows(), warm.rounds()), o.producers(),
                    o.window().toSeconds(), slow, bomb, probes, health, producers.accepted().size(), lost, duplicates,
                    missed.isEmpty() ? "none" : String.join(",", missed), service.isAlive(),
                    String.join(" ", jvmOptions));
        }
    }

    private static IngestHostile.SlowBodies slowBodies(Hostile o, RawHttp.Target target, IngestProducers producers,
            Duration bodyTimeout) throws InterruptedException {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("slow-body-bytes").factory());
        AttackWindows w;
        try {
            w = AttackWindows.measure(producers, o.producers(), o.window(), new SlowBodies(target, SLOW_BODIES,
                    o.slowBodies(), Hostile.SLOW_CONTENT_LENGTH, o.slowByteEvery(),
                    bodyTimeout.plus(SLOW_BODY_GIVEN_UP_AFTER), scheduler));
        } finally {
            scheduler.shutdownNow();
        }
        StatusTally ends = w.attack();
        System.out.printf(Locale.ROOT, "1. slow bodies: %d connections from %s, each a batch head of Content-Length %d"
                + " then one byte per %d ms: producers %.0f msgs/s against %.0f without (before, after: %s), ratio"
                + " %.2f (target 0.9); producers' answers %s; slow bodies ended %s, after %d to %d ms (target 408"
                + " within the body timeout, %d ms)%n", o.slowBodies(), SLOW_BODIES.getHostAddress(),
                Hostile.SLOW_CONTENT_LENGTH, o.slowByteEvery().toMillis(), w.attacked().msgsPerS(),
                w.baselineMsgsPerS(), w.baselineRates(), w.ratio(), w.attacked().statuses().text(), ends.text(),
                ends.minMs(), ends.maxMs(), bodyTimeout.toMillis());
        return new IngestHostile.SlowBodies(o.slowBodies(), bodyTimeout.toMillis(),
                Round.one(w.baselineMsgsPerS()), w.baselineRates(), Round.one(w.attacked().msgsPerS()),
                Round.two(w.ratio()), ends.text(), ends.minMs(), ends.maxMs());
    }

    private static IngestHostile.TokenBomb tokenBombs(Hostile o, RawHttp.Target target, IngestProducers producers)
            throws InterruptedException {
        TokenBombs bombs = new TokenBombs(target, BOMBS, o.bombs(), o.bombItems(), Duration.ofMinutes(2));
        AttackWindows w = AttackWindows.measure(producers, 1, o.window(), bombs);
        StatusTally answers = w.attack();
        System.out.printf(Locale.ROOT, "2. token bombs: %d at once from %s, each %d empty objects (%d bytes): one"
                + " producer's p99 %.1f ms against %.1f ms without (before, after: %s) (target under 100 ms; its"
                + " answers %s); bombs answered %s, in %d to %d ms (target 413 or 400)%n", o.bombs(),
                BOMBS.getHostAddress(), o.bombItems(), bombs.bytes(), w.attacked().p99Ms(), w.baselineP99Ms(),
                w.baselineP99s(), w.attacked().statuses().text(), answers.text(), answers.minMs(), answers.maxMs());
        return new IngestHostile.TokenBomb(o.bombs(), bombs.bytes(), Round.one(w.baselineP99Ms()), w.baselineP99s(),
                Round.one(w.attacked().p99Ms()), answers.text(), answers.maxMs());
    }

    private static IngestHostile.Probes probes(Hostile o, RawHttp.Target target, ServiceClient client)
            throws IOException, InterruptedException {
        int encoded;
        try (RawHttp connection = RawHttp.open(target, PRODUCERS, Duration.ofSeconds(30))) {
            connection.send(RawHttp.head("POST", ENCODED_PAUSE, target, target.basic(target.password()), "text/plain",
                    0));
            encoded = connection.readStatus();
        }
        boolean paused = client.stats().path("relayPaused").asBoolean();
        System.out.printf(Locale.ROOT, "3. encoded path: POST %s (text/plain, %s's Basic credentials) answered %d,"
                + " relay paused after it: %s (target: not 2xx, not paused)%n", ENCODED_PAUSE, OPERATOR, encoded,
                paused);
        if (paused) {
            client.resume();
        }
        StatusTally guesses = new StatusTally();
        for (int i = 0; i < o.guesses(); i++) {
            long started = System.nanoTime();
            guesses.add(stats(target, GUESSER, "wrong-" + i), (System.nanoTime() - started) / 1_000_000);
        }
        int user = stats(target, USER, target.password());
        System.out.printf(Locale.ROOT, "4. guesser and user: %d wrong passwords for %s from %s answered %s; then the"
                + " right one from %s answered %d (target 200)%n", o.guesses(), OPERATOR, GUESSER.getHostAddress(),
                guesses.text(), USER.getHostAddress(), user);
        return new IngestHostile.Probes(encoded, paused, guesses.text(), user);
    }

    private static IngestHostile.HealthFlood healthFlood(Hostile o, RawHttp.Target target, IngestProducers producers)
            throws InterruptedException {
        AttackWindows w = AttackWindows.measure(producers, o.producers(), o.window(),
                new HealthFlood(target, HEALTH_FLOOD, o.healthClients()));
        StatusTally answers = w.attack();
        System.out.printf(Locale.ROOT, "5. health flood: %d callers of /actuator/health from %s: producers %.0f"
                + " msgs/s against %.0f without (before, after: %s), ratio %.2f (target 0.9); producers' answers %s;"
                + " health answers %s (%.0f/s)%n", o.healthClients(), HEALTH_FLOOD.getHostAddress(),
                w.attacked().msgsPerS(), w.baselineMsgsPerS(), w.baselineRates(), w.ratio(),
                w.attacked().statuses().text(), answers.text(), answers.total() / (o.window().toMillis() / 1000.0));
        return new IngestHostile.HealthFlood(o.healthClients(), Round.one(w.baselineMsgsPerS()), w.baselineRates(),
                Round.one(w.attacked().msgsPerS()), Round.two(w.ratio()), answers.text());
    }

    /** {@code GET /v1/stats} from {@code from} with the operator's name and {@code secret}: its status. */
    private static int stats(RawHttp.Target target, InetAddress from, String secret) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).localAddress(from)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (http) {
            return http.send(HttpRequest.newBuilder(URI.create(target.baseUrl() + "/v1/stats"))
                    .header("Authorization", target.basic(secret)).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return StatusTally.NO_ANSWER;
        }
    }

    private static InetAddress loopback(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("four bytes are an IPv4 address", e);
        }
    }
}
