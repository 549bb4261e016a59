package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.api.HealthCallLimit;
import dev.dispatcher.app.api.HealthFastPath;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.ProxiedKafka;
import dev.dispatcher.testkit.TestServers;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code /actuator/health} is public: a flood of calls costs at most one {@code SELECT 1} per cache period, one
 * client flooding it is slowed while others are answered at once, readiness follows PostgreSQL alone, and the public
 * answers replayed around the framework ({@link HealthFastPath}) are the framework's, status, headers and body: a call
 * made once the recorded answer has expired is rendered by the framework (the replay count does not move), the call
 * right after it is replayed (the count moves), and the two are compared whole, for {@code UP} and for {@code DOWN}.
 * The service runs on a broker of its own behind the kit's proxy, so cutting the proxy stops Kafka for this service
 * only. Database checks are counted in {@code pg_stat_activity} through a
 * fresh connection: every execution of {@code SELECT 1} on one of the service's backends gives that backend a new
 * {@code query_start}, so the distinct ones seen by sampling are a lower bound of the executions.
 */
class HealthIT {

    private static final PostgresServer POSTGRES = TestServers.postgres();
    private static final String WORKER_ID =
            "health-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private static final String OPERATOR = "Basic "
            + Base64.getEncoder().encodeToString("operator:operator-pw".getBytes(StandardCharsets.UTF_8));
    /** How long a health check's result is kept ({@code config.HealthConfiguration.CACHE_FOR}). */
    private static final Duration CACHE_PERIOD = Duration.ofSeconds(1);
    private static final java.net.http.HttpClient HTTP =
            java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static ProxiedKafka kafka;
    private static ConfigurableApplicationContext context;
    private static String baseUrl;
    private static HealthFastPath fastPath;

    @BeforeAll
    static void start() {
        kafka = TestServers.kafkaBehindProxy();
        String schema = "health_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Map<String, Object> properties = DispatcherTestProperties.forSchema(schema);
        properties.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        properties.put("dispatcher.worker-id", WORKER_ID);
        properties.put("dispatcher.security.users[0].name", "operator");
        properties.put("dispatcher.security.users[0].password", "{noop}operator-pw");
        properties.put("dispatcher.security.users[0].roles[0]", "OPERATOR");
        context = DispatcherTestProperties.start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
        fastPath = context.getBean(HealthFastPath.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void aFloodOfHealthCallsCostsAtMostOneDatabaseCheckPerCachePeriod() throws Exception {
        Duration flood = Duration.ofSeconds(3);
        int clients = 200;
        long calls = 300;
        Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        Set<String> checks = new HashSet<>();
        AtomicBoolean flooding = new AtomicBoolean(true);
        long started = System.nanoTime();
        // each caller from an address of its own, so the per-client limit (HealthCallLimit) lets the flood through
        List<CompletableFuture<Void>> users = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            users.add(callWhile(from("127.0.1." + (i + 1)), flooding::get, statuses, null).toFuture());
        }
        try (Connection c = POSTGRES.openConnection(); PreparedStatement sample = c.prepareStatement(
                "SELECT pid, query_start FROM pg_stat_activity WHERE application_name = ? AND query = 'SELECT 1'")) {
            sample.setString(1, "dispatcher-" + WORKER_ID);
            // as many calls as the machine takes, for at least several cache periods: the bound below counts the
            // periods this flood really lasted, so a slow machine floods longer instead of failing the test
            await("%d health calls answered over at least %s, sampling the database checks".formatted(calls, flood))
                    .atMost(Duration.ofMinutes(2)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        try (ResultSet r = sample.executeQuery()) {
                            while (r.next()) {
                                checks.add(r.getInt(1) + "@" + r.getTimestamp(2).toInstant());
                            }
                        }
                        return answered(statuses) >= calls && System.nanoTime() - started >= flood.toNanos();
                    });
            flooding.set(false);
            CompletableFuture.allOf(users.toArray(CompletableFuture[]::new)).join();
            try (ResultSet r = sample.executeQuery()) { // a check made by the last calls
                while (r.next()) {
                    checks.add(r.getInt(1) + "@" + r.getTimestamp(2).toInstant());
                }
            }
        }
        Duration lasted = Duration.ofNanos(System.nanoTime() - started);

        long periods = lasted.toNanos() / CACHE_PERIOD.toNanos() + 1; // cache periods begun while the flood lasted
        System.out.println("DIAG health calls answered=" + answered(statuses) + " statuses=" + statuses + " in "
                + lasted + " SELECT 1 seen=" + checks.size());
        assertThat(answered(statuses)).as("the flood really ran: many calls per cache period")
                .isGreaterThanOrEqualTo(calls);
        assertThat(statuses.keySet()).as("every call answered UP").containsExactly(200);
        // one check per cache period begun during the flood, plus those not caused by it: the last check before the
        // flood (a backend shows its latest query until the next) and a keep-alive of the relay's LISTEN connection
        // (SELECT 1 every 10 s); without the cache, thousands
        assertThat((long) checks.size())
                .as("database checks during %s of %d concurrent health callers", lasted, clients)
                .isLessThanOrEqualTo(periods + 1 + (periods / 10 + 1));
    }

    @Test
    void aClientFloodingHealthIsSlowedWhileAnotherClientIsAnsweredAtOnce() {
        Duration flood = Duration.ofSeconds(3);
        Map<Integer, AtomicLong> flooder = new ConcurrentHashMap<>();
        Queue<Duration> flooderTook = new ConcurrentLinkedQueue<>();
        long started = System.nanoTime();
        long until = started + flood.toNanos();
        HttpClient attacker = from("127.0.2.1");
        List<CompletableFuture<Void>> callers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            callers.add(callWhile(attacker, () -> System.nanoTime() < until, flooder, flooderTook).toFuture());
        }
        CompletableFuture<Void> flooded = CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new));
        HttpClient probe = from("127.0.2.2");
        // a probe every 300 ms while the flood lasts: within its burst and a turn a second
        List<Map.Entry<Integer, Duration>> probed = Flux.interval(Duration.ZERO, Duration.ofMillis(300))
                .onBackpressureDrop()
                .concatMap(i -> Mono.defer(() -> {
                    long sent = System.nanoTime();
                    return probe.get().uri(baseUrl + "/actuator/health/readiness")
                            .responseSingle((r, body) -> Mono.just(r.status().code()))
                            .map(status -> Map.entry(status, Duration.ofNanos(System.nanoTime() - sent)));
                }))
                .takeUntilOther(Mono.fromFuture(flooded))
                .collectList().block(Duration.ofMinutes(2));
        flooded.join();
        Duration lasted = Duration.ofNanos(System.nanoTime() - started);

        System.out.println("DIAG flooding client " + flooder + " in " + lasted + ", median " + median(flooderTook)
                + "; other client " + probed);
        assertThat(probed).as("the other client: every call answered").isNotEmpty()
                .allSatisfy(answer -> assertThat(answer.getKey()).isEqualTo(200));
        assertThat(flooder.keySet()).as("the flooding client is refused past its permits").contains(429);
        // compared with the flooder's calls on the same machine at the same time, not with a fixed time: the
        // flooder's calls wait for a turn or a refusal (HealthCallLimit.WAIT), the other client's never wait
        Duration probeMedian = median(probed.stream().map(Map.Entry::getValue).toList());
        assertThat(probeMedian).as("the other client's median answer, the flooder's: %s", median(flooderTook))
                .isLessThan(median(flooderTook).minus(HealthCallLimit.WAIT.dividedBy(2)));
        // its burst, a turn a second while the flood lasted, and the turns of calls still waiting at its end (at
        // most a second's worth); unpaced, the same connections got thousands
        assertThat(flooder.get(200).get()).as("answers the flooding client got in %s", lasted)
                .isLessThanOrEqualTo(HealthCallLimit.BURST
                        + HealthCallLimit.CALLS_PER_SECOND * (lasted.toSeconds() + 2));
        String retryAfter = Flux.range(0, 100).flatMap(i -> attacker.get().uri(baseUrl + "/actuator/health")
                        .responseSingle((r, body) -> body.then(Mono.just(r.status().code() == 429
                                ? r.responseHeaders().get(HttpHeaderNames.RETRY_AFTER, "none") : ""))))
                .filter(header -> !header.isEmpty()).blockFirst(Duration.ofSeconds(30));
        assertThat(retryAfter).as("a refused call's Retry-After").isEqualTo("1");
    }

    @Test
    void aFloodingClientsRefusalsAreTheFrameworksRefusalReplayed() {
        HttpClient flooder = from("127.0.2.3");
        List<String> first = refusals(flooder);
        long before = fastPath.refusalsReplayed();
        List<String> second = refusals(flooder);

        assertThat(first).as("refused past the burst, rendered by the framework").isNotEmpty();
        assertThat(first.getFirst()).contains("application/problem+json", "Retry-After=1", "too-many-health-calls");
        assertThat(second).as("refused again, each as the framework rendered the refusal").isNotEmpty()
                .containsOnly(first.getFirst());
        assertThat(fastPath.refusalsReplayed() - before).as("refusals replayed around the framework").isPositive();
    }

    /** 40 health calls at once from {@code client}: each refusal's content type, Retry-After and body. */
    private List<String> refusals(HttpClient client) {
        return Flux.range(0, 40).flatMap(i -> client.get().uri(baseUrl + "/actuator/health")
                        .responseSingle((r, body) -> body.asString().defaultIfEmpty("").map(text -> r.status().code()
                                == 429 ? r.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE) + " Retry-After="
                                + r.responseHeaders().get(HttpHeaderNames.RETRY_AFTER) + " " + text : "")), 40)
                .filter(refusal -> !refusal.isEmpty()).collectList().block(Duration.ofMinutes(1));
    }

    @Test
    void withTheBrokerDownReadinessStaysUpAndHealthShowsKafkaDown() throws Exception {
        kafka.proxy().cut();
        try {
            eventually("kafka reported DOWN").until(() -> {
                HttpResponse<String> health = get("/actuator/health");
                return health.statusCode() == 503 && health.body().contains("\"kafka\":{\"status\":\"DOWN\"");
            });
            HttpResponse<String> health = get("/actuator/health");
            assertThat(health.body()).contains("\"db\":{\"status\":\"UP\"");
            HttpResponse<String> readiness = get("/actuator/health/readiness");
            assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
            assertThat(readiness.body()).contains("\"status\":\"UP\"").doesNotContain("kafka");
        } finally {
            kafka.proxy().restore();
        }
        eventually("kafka back UP")
                .until(() -> get("/actuator/health").body().contains("\"kafka\":{\"status\":\"UP\""));
    }

    @Test
    void replayedAnswersAreTheFrameworksWhenUpAndWhenDown() throws Exception {
        eventually("health UP").until(() -> get("/actuator/health", null, null).statusCode() == 200);
        assertReplayedAsRendered("/actuator/health", null, 200, "\"kafka\":{\"status\":\"UP\"}");
        assertReplayedAsRendered("/actuator/health", "application/json", 200, "\"db\":{\"status\":\"UP\"}");
        assertReplayedAsRendered("/actuator/health/readiness", null, 200, "\"db\":{\"status\":\"UP\"}");
        assertReplayedAsRendered("/actuator/health/liveness", "*/*", 200, "\"status\":\"UP\"");

        kafka.proxy().cut();
        try {
            eventually("kafka DOWN").until(() -> get("/actuator/health", null, null).statusCode() == 503);
            assertReplayedAsRendered("/actuator/health", null, 503, "\"kafka\":{\"status\":\"DOWN\"}");
            assertReplayedAsRendered("/actuator/health/readiness", null, 200, "\"db\":{\"status\":\"UP\"}");
        } finally {
            kafka.proxy().restore();
        }
        eventually("kafka back UP").until(() -> get("/actuator/health", null, null).statusCode() == 200);
    }

    @Test
    void aCallerWithCredentialsGetsTheFrameworksAnswerWithDetails() throws Exception {
        get("/actuator/health", null, null); // a recorded public answer, if none is fresh
        long replayed = fastPath.replayed();
        HttpResponse<String> operator = get("/actuator/health", null, OPERATOR);
        assertThat(fastPath.replayed()).as("never answered from the record").isEqualTo(replayed);
        assertThat(operator.body()).contains("\"details\"", "\"database\":\"PostgreSQL\"");
        HttpResponse<String> anonymous = get("/actuator/health", null, null);
        assertThat(anonymous.body()).contains("\"db\":{\"status\":").doesNotContain("details", "PostgreSQL");
    }

    /**
     * A framework answer and the replay right after it, compared whole; tried again while health changes between
     * the two or the machine is too slow to make the second call before the record expires.
     */
    private static void assertReplayedAsRendered(String path, String accept, int status, String contains) {
        AtomicReference<List<HttpResponse<String>>> pair = new AtomicReference<>();
        // each try once the recorded answer has expired
        Duration expired = HealthFastPath.RENDERED_FOR.plusMillis(100);
        await("a rendered %s answer to %s, then the same replayed".formatted(status, path))
                .atMost(Duration.ofSeconds(30)).pollDelay(expired).pollInterval(expired)
                .until(() -> {
                    long before = fastPath.replayed();
                    HttpResponse<String> rendered = get(path, accept, null);
                    long between = fastPath.replayed();
                    HttpResponse<String> replayed = get(path, accept, null);
                    long after = fastPath.replayed();
                    pair.set(List.of(rendered, replayed));
                    return between == before && after == between + 1 && rendered.statusCode() == status
                            && replayed.body().equals(rendered.body());
                });
        HttpResponse<String> rendered = pair.get().get(0);
        HttpResponse<String> replayed = pair.get().get(1);
        assertThat(replayed.statusCode()).isEqualTo(rendered.statusCode()).isEqualTo(status);
        assertThat(replayed.headers().map()).as(path).isEqualTo(rendered.headers().map());
        assertThat(replayed.body()).isEqualTo(rendered.body()).contains(contains).doesNotContain("details");
    }

    // ---- helpers

    private static ConditionFactory eventually(String what) {
        return await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200));
    }

    /** A client whose connections come from {@code address} (any address of the loopback range). */
    private static HttpClient from(String address) {
        return HttpClient.create().bindAddress(() -> new InetSocketAddress(address, 0));
    }

    /**
     * One health caller: a call as soon as the previous one is answered, while {@code going}; each answer's status
     * counted in {@code statuses} and, if {@code took} is given, its time there.
     */
    private static Mono<Void> callWhile(HttpClient client, BooleanSupplier going, Map<Integer, AtomicLong> statuses,
            Queue<Duration> took) {
        // a call left unanswered fails the test instead of holding it
        return Mono.defer(() -> {
                    long sent = System.nanoTime();
                    return client.get().uri(baseUrl + "/actuator/health")
                            .responseSingle((r, body) -> Mono.just(r.status().code()))
                            .timeout(Duration.ofSeconds(30))
                            .doOnNext(status -> {
                                if (took != null) {
                                    took.add(Duration.ofNanos(System.nanoTime() - sent));
                                }
                            });
                })
                .doOnNext(status -> statuses.computeIfAbsent(status, x -> new AtomicLong()).incrementAndGet())
                .repeat(going)
                .then();
    }

    private static long answered(Map<Integer, AtomicLong> statuses) {
        return statuses.values().stream().mapToLong(AtomicLong::get).sum();
    }

    private static Duration median(Collection<Duration> durations) {
        List<Duration> sorted = durations.stream().sorted().toList();
        assertThat(sorted).as("timed calls").isNotEmpty();
        return sorted.get(sorted.size() / 2);
    }

    private static HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30)).build();
    }

    private static HttpResponse<String> get(String path, String accept, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
        if (accept != null) {
            request.header("Accept", accept);
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
    private static HttpResponse<String> get(String path) {
        try {
            return HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
