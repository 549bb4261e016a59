package dev.dispatcher.load.gatling;

import dev.dispatcher.app.DispatcherApplication;
import dev.dispatcher.testkit.EmbeddedKafkaServer;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a Gatling simulation talks to. Without {@code -Ddispatcher.target.url} it boots the service on the embedded
 * default first (durable PostgreSQL, in-process Kafka, a generated producer token and operator token); with it, it
 * uses that URL and the tokens in {@code -Ddispatcher.target.producer-token} / {@code operator-token}, and skips the
 * Kafka-side check it cannot make.
 *
 * <p>After a run, {@link #verify} waits for the outbox to drain and consumes the topic to count lost and duplicate
 * messages among those the API accepted, writing them to {@code target/gatling-ingest-check.properties} for
 * {@code GatlingResult}.
 */
final class GatlingTarget {

    static final String SCHEMA = "gatling";

    final String baseUrl;
    final String producerToken;
    final String operatorToken;
    private final PostgresServer postgres;
    private final KafkaServer kafka;
    private final ConfigurableApplicationContext app;
    /** Ids the API accepted (202), recorded by the simulation. */
    final Set<String> accepted = ConcurrentHashMap.newKeySet();
    private final java.util.Queue<Long> latencies = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
    private volatile long firstNanos;
    private volatile long lastNanos;

    /** Records one ingest request: its response time (null without a response) and whether it failed. */
    void record(Long responseMillis, boolean requestFailed) {
        long now = System.nanoTime();
        if (requests.getAndIncrement() == 0) {
            firstNanos = now;
        }
        lastNanos = now;
        if (responseMillis != null) {
            latencies.add(responseMillis);
        }
        if (requestFailed) {
            failed.incrementAndGet();
        }
    }

    private String requestFigures() {
        List<Long> sorted = latencies.stream().sorted().toList();
        long p99 = sorted.isEmpty() ? -1 : sorted.get(Math.max(0, (int) Math.ceil(0.99 * sorted.size()) - 1));
        double seconds = Math.max(1e-9, (lastNanos - firstNanos) / 1e9);
        return "requests=" + requests.get() + "\nfailed=" + failed.get() + "\nreq_per_s="
                + Math.round(requests.get() / seconds * 10) / 10.0 + "\np99_ms=" + p99 + "\n";
    }

    private GatlingTarget(String baseUrl, String producerToken, String operatorToken, PostgresServer postgres,
            KafkaServer kafka, ConfigurableApplicationContext app) {
        this.baseUrl = baseUrl;
        this.producerToken = producerToken;
        this.operatorToken = operatorToken;
        this.postgres = postgres;
        this.kafka = kafka;
        this.app = app;
    }

    static GatlingTarget start() {
        String url = System.getProperty("dispatcher.target.url");
        if (url != null && !url.isBlank()) {
            return new GatlingTarget(url, System.getProperty("dispatcher.target.producer-token", ""),
                    System.getProperty("dispatcher.target.operator-token", ""), null, null, null);
        }
        PostgresServer postgres = EmbeddedPostgresServer.durable();
        KafkaServer kafka = EmbeddedKafkaServer.start();
        String producer = token();
        String operator = token();
        ConfigurableApplicationContext app = SpringApplication.run(DispatcherApplication.class,
                "--server.port=0",
                "--spring.r2dbc.url=" + postgres.r2dbcUrl(),
                "--spring.r2dbc.username=" + postgres.username(),
                "--spring.r2dbc.password=" + postgres.password(),
                "--spring.r2dbc.pool.max-size=32",
                "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "--dispatcher.schema=" + SCHEMA,
                "--dispatcher.security.tokens[0].name=gatling-producer",
                "--dispatcher.security.tokens[0].sha256=" + sha256(producer),
                "--dispatcher.security.tokens[0].roles=PRODUCER",
                "--dispatcher.security.tokens[1].name=gatling-operator",
                "--dispatcher.security.tokens[1].sha256=" + sha256(operator),
                "--dispatcher.security.tokens[1].roles=OPERATOR",
                "--logging.level.root=WARN",
                "--logging.level.dev.dispatcher=INFO");
        String port = app.getEnvironment().getProperty("local.server.port");
        System.out.println("Gatling target: embedded Dispatcher on http://localhost:" + port);
        warmUp("http://localhost:" + port, producer, Integer.getInteger("ingest.warmup", 20_000));
        return new GatlingTarget("http://localhost:" + port, producer, operator, postgres, kafka, app);
    }

    /**
     * Sends {@code n} single ingests (16 at a time, to a topic the check ignores) before the simulation starts, so
     * Gatling measures a running service, not the JIT compiler: cold, the freshly booted service answered at a
     * third of its warm rate, and an open-model load then piles up connections until file descriptors run out.
     * {@code -Dingest.warmup=0} skips it. Runs on the simulation's start-up thread, before any load.
     */
    private static void warmUp(String baseUrl, String token, int n) {
        if (n <= 0) {
            return;
        }
        HttpClient client = HttpClient.newHttpClient();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long start = System.nanoTime();
        List<Thread> senders = IntStream.range(0, 16).mapToObj(t -> Thread.ofPlatform().start(() -> {
            for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/messages"))
                        .header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString("""
                                {"topic":"gatling.warmup","key":"warm-%d","type":"WarmUp","payload":{"n":%d}}"""
                                .formatted(i % 64, i)))
                        .build();
                try {
                    if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() != 202) {
                        failed.incrementAndGet();
                    }
                } catch (IOException | InterruptedException e) {
                    failed.incrementAndGet();
                }
            }
        })).toList();
        for (Thread t : senders) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        System.out.printf(Locale.ROOT, "Gatling target: warm-up sent %d ingests in %.1f s (%d not accepted)%n",
                n, (System.nanoTime() - start) / 1e9, failed.get());
    }

    /** Waits for the backlog to drain, then checks every accepted message on Kafka; writes the figures. */
    void verify(List<String> topics) {
        long lost = -1;
        long duplicates = -1;
        if (postgres != null) {
            awaitDrained(Duration.ofMinutes(5));
            Set<String> seen = ConcurrentHashMap.newKeySet();
            long records = 0;
            for (String topic : topics) {
                for (ConsumerRecord<String, byte[]> r : kafka.consume(topic, Integer.MAX_VALUE, Duration.ofSeconds(20))) {
                    records++;
                    var h = r.headers().lastHeader("message-id");
                    if (h != null) {
                        seen.add(new String(h.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            Set<String> missing = accepted.stream().filter(id -> !seen.contains(id)).collect(Collectors.toSet());
            lost = missing.size();
            duplicates = records - seen.size();
        }
        String figures = requestFigures() + "accepted=" + accepted.size() + "\nlost=" + lost + "\nduplicates="
                + duplicates + "\n";
        try {
            Path out = Path.of(System.getProperty("dispatcher.check.file", "load-tests/target/gatling-ingest-check.properties"));
            Files.createDirectories(out.getParent());
            Files.writeString(out, figures);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        System.out.println("Kafka check: " + figures.replace('\n', ' '));
    }

    private void awaitDrained(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + SCHEMA
                        + ".outbox_message WHERE status IN ('PENDING', 'RETRY_SCHEDULED')")) {
                    r.next();
                    if (r.getLong(1) == 0) {
                        return;
                    }
                }
                Thread.sleep(200);
            }
        } catch (Exception e) {
            throw new IllegalStateException("waiting for the outbox to drain", e);
        }
    }

    void stop() {
        if (app != null) {
            app.close();
            kafka.close();
            postgres.close();
        }
    }

    private static String token() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return "dsp_" + HexFormat.of().formatHex(bytes);
    }

    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
