package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.app.ingest.IngestBudget;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;

/**
 * Hostile clients on the running service (issue 50), in a context of its own with small bounds.
 *
 * <p>One client's share of ingest's request slots: with {@code
 * dispatcher.ingest.max-concurrent-requests} 8 and its per-client share left at its default (a quarter: 2), one API
 * token holds its whole share with two slow bodies over raw connections, one on the single-message fast path and
 * one a batch the framework's way, both counted against the same token. Its next request is answered {@code 429}
 * ({@code too-many-ingest-requests}) before its body is read, while another token's single messages and batches,
 * two at a time (its own share), are answered {@code 202}; the slow bodies end at {@code dispatcher.ingest.body-timeout} and the per-client table is
 * empty again.
 *
 * <p>The connection cap: with {@code dispatcher.server.max-connections} {@value #MAX_CONNECTIONS}, a connection
 * opened past it is closed at once, without an answer, and counted, while one already open is still answered.
 */
class HostileClientsIT {

    private static final int MAX_CONNECTIONS = 8;
    private static final String HOG = "hog-" + UUID.randomUUID();
    private static final String PRODUCER = "producer-" + UUID.randomUUID();
    private static final String SCHEMA = "share_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    private static final byte[] HEALTH = "GET /actuator/health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);

    private static ConfigurableApplicationContext context;
    private static String baseUrl;

    @BeforeAll
    static void start() {
        Map<String, Object> properties = DispatcherTestProperties.forSchema(SCHEMA);
        properties.put("dispatcher.worker-id", "hostile-clients-it");
        properties.put("dispatcher.ingest.body-timeout", "3s");
        properties.put("dispatcher.ingest.max-concurrent-requests", "8");
        properties.put("dispatcher.server.max-connections", Integer.toString(MAX_CONNECTIONS));
        properties.put("server.netty.idle-timeout", "5s"); // the other test's kept-alive connections close soon
        SlowClients.producerToken(properties, 0, "hog", HOG);
        SlowClients.producerToken(properties, 1, "producer", PRODUCER);
        context = DispatcherTestProperties.start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void aClientHoldingItsShareWithSlowBodiesIsRefused429WhileAnotherClientIsAnswered202() throws Exception {
        IngestBudget budget = context.getBean(IngestBudget.class);
        assertThat(context.getBean(IngestFastPath.class).enabled()).as("the single message goes the fast path")
                .isTrue();
        String topic = "share." + UUID.randomUUID();
        // Jackson builds its deserializers under a lock on first use: one request alone before the test
        assertThat(send(PRODUCER, "/v1/messages", IngestApiIT.item(null, topic + ".warm", "k", "1"))
                .get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(202);
        List<Socket> sockets = new ArrayList<>();
        ScheduledExecutorService trickle = Executors.newScheduledThreadPool(1);
        ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<CompletableFuture<String>> slowAnswers = new ArrayList<>();
            for (String path : List.of("/v1/messages", "/v1/messages/batch")) {
                Socket socket = SlowClients.slowPost(baseUrl, path, HOG, 1_000_000, "", trickle);
                sockets.add(socket);
                slowAnswers.add(CompletableFuture.supplyAsync(() -> SlowClients.readUntilClosed(socket), readers));
            }
            await("the hog's two slow bodies admitted against its token").atMost(Duration.ofSeconds(10))
                    .until(() -> budget.requestsOf(IngestClientKey.ofToken("hog")) == 2);

            HttpResponse<String> refused = send(HOG, "/v1/messages/batch",
                    "[" + IngestApiIT.item(null, topic, "h", "1") + "]").get(60, TimeUnit.SECONDS);
            assertThat(refused.statusCode()).as("past its share: %s", refused.body()).isEqualTo(429);
            assertThat(refused.body()).contains("https://dispatcher.dev/problems/too-many-ingest-requests",
                    "dispatcher.ingest.max-concurrent-requests-per-client");
            assertThat(refused.headers().firstValue(HttpHeaders.RETRY_AFTER)).hasValue("1");

            for (int i = 0; i < 3; i++) { // two at a time: the other client's own share
                List<CompletableFuture<HttpResponse<String>>> pair = List.of(
                        send(PRODUCER, "/v1/messages", IngestApiIT.item(null, topic, "k-" + i, "1")),
                        send(PRODUCER, "/v1/messages/batch", "[" + IngestApiIT.item(null, topic, "b-" + i, "1")
                                + "," + IngestApiIT.item(null, topic, "b-" + i, "2") + "]"));
                for (CompletableFuture<HttpResponse<String>> other : pair) {
                    HttpResponse<String> answer = other.get(60, TimeUnit.SECONDS);
                    assertThat(answer.statusCode()).as("another client beside the hog: %s", answer.body())
                            .isEqualTo(202);
                }
            }
            assertThat(budget.requestsOf(IngestClientKey.ofToken("hog"))).as("the hog still holds its share")
                    .isEqualTo(2);

            await("both slow bodies answered").atMost(Duration.ofSeconds(20))
                    .until(() -> slowAnswers.stream().allMatch(CompletableFuture::isDone));
            for (CompletableFuture<String> slow : slowAnswers) {
                assertThat(slow.get()).startsWith("HTTP/1.1 408");
            }
            await("every slot and the per-client table given back").atMost(Duration.ofSeconds(10))
                    .until(() -> budget.requests() == 0 && budget.clients() == 0);
        } finally {
            trickle.shutdownNow();
            readers.shutdownNow();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void aConnectionPastMaxConnectionsIsClosedAtOnceWhileAnOpenOneIsStillAnswered() throws Exception {
        ConnectionCap cap = context.getBean(ConnectionCap.class);
        Counter refused = context.getBean(MeterRegistry.class).counter(ConnectionCap.REFUSED_METRIC);
        double refusedBefore = refused.count();
        await("the other test's kept-alive connections closed by the idle timeout").atMost(Duration.ofSeconds(30))
                .until(() -> cap.open() == 0);
        URI uri = URI.create(baseUrl);
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS; i++) {
                Socket socket = new Socket(uri.getHost(), uri.getPort());
                socket.setSoTimeout(10_000);
                sockets.add(socket);
            }
            OutputStream first = sockets.getFirst().getOutputStream();
            first.write(HEALTH);
            assertThat(SlowBodiesIT.readOneResponseHead(sockets.getFirst().getInputStream())).startsWith("HTTP/1.1 200");
            await("all " + MAX_CONNECTIONS + " connections accepted").atMost(Duration.ofSeconds(10))
                    .until(() -> cap.open() == MAX_CONNECTIONS);

            try (Socket extra = new Socket(uri.getHost(), uri.getPort())) {
                extra.setSoTimeout(10_000);
                assertThat(SlowClients.readUntilClosed(extra)).as("closed without an answer").isEmpty();
            }
            assertThat(refused.count()).isEqualTo(refusedBefore + 1);

            first.write(HEALTH);
            assertThat(SlowBodiesIT.readOneResponseHead(sockets.getFirst().getInputStream()))
                    .as("a connection already open is still answered").startsWith("HTTP/1.1 200");
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
        await("room again once they closed").atMost(Duration.ofSeconds(10)).until(() -> cap.open() == 0);
        assertThat(send(PRODUCER, "/v1/messages", IngestApiIT.item(null, "cap." + UUID.randomUUID(), "k", "1"))
                .get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(202);
    }

    private static CompletableFuture<HttpResponse<String>> send(String token, String path, String body) {
        return SlowClients.post(baseUrl, token, path, body);
    }
}
