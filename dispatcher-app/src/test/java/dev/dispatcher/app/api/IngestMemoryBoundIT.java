package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.sql.OutboxSql;
import dev.dispatcher.testkit.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * {@code dispatcher.ingest.max-queued-bytes} on the running service: while the ingest statement waits for a key lock
 * that a second connection holds (seen blocked through {@code pg_blocking_pids}), requests of about 16 KiB pile up
 * behind it until their bytes reach the bound; the next ones are answered at once, while the lock is still held,
 * with {@code 503}, {@code Retry-After} and an RFC 9457 problem, and nothing of theirs is written. Once the lock goes,
 * every admitted request is written. Both ways in: a Basic user (the framework's path) and an API token (the fast
 * path, which hands a refused request to the framework unread). A context of its own, whose lock timeout outlasts a
 * slow machine's arrival of the flood.
 */
class IngestMemoryBoundIT {

    private static final long MAX_PAYLOAD = 16 * 1024;
    /** Just above the largest body the limits allow, a batch's (8 x 16 KiB + 64 KiB). */
    private static final long MAX_QUEUED_BYTES = 256 * 1024;
    private static final String TOKEN = "memory-bound-" + UUID.randomUUID();
    private static final String SCHEMA = "bytes_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private static final HttpClient HTTP = HttpClient.newHttpClient(); // no connection limit of its own

    private static ConfigurableApplicationContext context;
    private static String baseUrl;

    @BeforeAll
    static void start() {
        Map<String, Object> properties = DispatcherTestProperties.forSchema(SCHEMA);
        properties.put("dispatcher.worker-id", "memory-bound-it");
        properties.put("dispatcher.ingest.max-payload-size", MAX_PAYLOAD + "B");
        properties.put("dispatcher.ingest.max-queued-bytes", MAX_QUEUED_BYTES + "B");
        properties.put("dispatcher.ingest.timeout", "60s");
        // short for aClientThatStopsMidBodyIsCutOffAfterTheReadTimeout; it also runs while a request waits for the
        // framework to start reading its body (Netty reads no more until asked), which a loaded machine can make
        // last a second or more
        properties.put("dispatcher.ingest.read-timeout", "5s");
        properties.put("spring.r2dbc.properties.lockWaitTimeout", "60s");
        properties.put("dispatcher.security.users[0].name", "producer");
        properties.put("dispatcher.security.users[0].password", "{noop}producer-pw");
        properties.put("dispatcher.security.users[0].roles", "PRODUCER");
        properties.put("dispatcher.security.tokens[0].name", "loader");
        properties.put("dispatcher.security.tokens[0].sha256",
                HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(TOKEN)));
        properties.put("dispatcher.security.tokens[0].roles", "PRODUCER");
        context = DispatcherTestProperties.start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"basic", "token"})
    void requestsPastTheQueuedBytesAnswer503AtOnceAndWriteNothing(String credentials) throws Exception {
        String authorization = credentials.equals("token") ? "Bearer " + TOKEN
                : "Basic " + Base64.getEncoder().encodeToString("producer:producer-pw".getBytes(StandardCharsets.UTF_8));
        String topic = "bytes." + UUID.randomUUID();
        String blockedKey = "k-" + UUID.randomUUID();
        String payload = "\"" + "x".repeat((int) MAX_PAYLOAD - 100) + "\"";
        long bodyBytes = IngestApiIT.item(null, topic, "k-00", payload).length();
        long admitted = MAX_QUEUED_BYTES / bodyBytes;
        int flood = 30;
        // Jackson builds its deserializers under a lock on first use: one request alone before any burst
        assertThat(send(authorization, IngestApiIT.item(null, topic + ".warm", "k", "1")).get(60, TimeUnit.SECONDS)
                .statusCode()).isEqualTo(202);

        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        List<Boolean> answeredWhileHeld = new ArrayList<>();
        try (Connection holder = TestServers.postgres().openConnection(SCHEMA)) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(OutboxSql.LOCK_KEY.replace("$1", "?"))) {
                lock.setString(1, blockedKey);
                lock.execute();
            }
            answers.add(send(authorization, IngestApiIT.item(null, topic, blockedKey, payload)));
            awaitIngestBlockedBy(holder);
            for (int i = 0; i < flood; i++) {
                answers.add(send(authorization, IngestApiIT.item(null, topic, "k-" + (10 + i), payload)));
            }
            // refusals come at once, admitted requests wait behind the lock: release it only once every refusal
            // is in, so that no request is admitted into room the lane made by moving on
            await("every refusal answered while the lock is held").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> answers.stream().filter(CompletableFuture::isDone).count() >= flood + 1 - admitted);
            answers.forEach(a -> answeredWhileHeld.add(a.isDone()));
            holder.commit();
        }
        List<HttpResponse<String>> all = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            all.add(answer.get(60, TimeUnit.SECONDS));
        }

        List<HttpResponse<String>> refused = all.stream().filter(r -> r.statusCode() == 503).toList();
        long accepted = all.stream().filter(r -> r.statusCode() == 202).count();
        assertThat(accepted + refused.size()).as("every answer a 202 or a 503").isEqualTo(flood + 1);
        assertThat(all.get(0).statusCode()).as("the blocked request, written once the lock went").isEqualTo(202);
        assertThat(accepted).as("the bound admitted what fits, the blocked request included").isEqualTo(admitted);
        assertThat(refused).allSatisfy(r -> {
            assertThat(r.headers().firstValue(HttpHeaders.RETRY_AFTER)).hasValue("1");
            assertThat(r.headers().firstValue(HttpHeaders.CONTENT_TYPE))
                    .hasValue(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            assertThat(r.body()).contains("ingest-memory-full", "dispatcher.ingest.max-queued-bytes");
        });
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).statusCode() == 503) {
                assertThat(answeredWhileHeld.get(i)).as("refusal %d answered while the lock was held", i).isTrue();
            }
        }
        try (Connection c = TestServers.postgres().openConnection(SCHEMA); PreparedStatement q = c.prepareStatement(
                "SELECT count(*) FROM outbox_message WHERE topic = ?")) {
            q.setString(1, topic);
            try (var rows = q.executeQuery()) {
                rows.next();
                assertThat(rows.getLong(1)).as("only the admitted requests were written").isEqualTo(accepted);
            }
        }
    }

    /**
     * A client that sends half a body and stops (a slowloris, a frozen peer) has its connection closed after
     * {@code dispatcher.ingest.read-timeout} (5 s here) instead of holding the body's reservation for ever.
     */
    @org.junit.jupiter.api.Test
    void aClientThatStopsMidBodyIsCutOffAfterTheReadTimeout() throws Exception {
        byte[] head = ("POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nContent-Length: 100000\r\n\r\n{\"topic\":\"t\",")
                .getBytes(StandardCharsets.US_ASCII);
        URI uri = URI.create(baseUrl);
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(30_000);
            long started = System.nanoTime();
            socket.getOutputStream().write(head);
            socket.getOutputStream().flush();
            byte[] answer = socket.getInputStream().readAllBytes(); // until the server closes the connection
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(millis).as("closed after the read timeout, not at once and not never (answer: %s)",
                    new String(answer, StandardCharsets.ISO_8859_1)).isBetween(4_500L, 25_000L);
        }
        assertThat(send("Bearer " + TOKEN, IngestApiIT.item(null, "bytes.after-slowloris", "k", "1"))
                .get(60, TimeUnit.SECONDS).statusCode()).as("its reservation was given back").isEqualTo(202);
    }

    private static void awaitIngestBlockedBy(Connection holder) throws Exception {
        int pid = ApiTestSupport.backendPid(holder);
        try (Connection c = TestServers.postgres().openConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))"
                        + " AND query LIKE 'WITH input AS MATERIALIZED%'")) {
            q.setInt(1, pid);
            await("an ingest blocked by backend " + pid).atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        try (var rows = q.executeQuery()) {
                            rows.next();
                            return rows.getLong(1) > 0;
                        }
                    });
        }
    }

    private static CompletableFuture<HttpResponse<String>> send(String authorization, String body) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/messages"))
                .header(HttpHeaders.AUTHORIZATION, authorization)
                .header(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
