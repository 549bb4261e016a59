package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.app.ingest.IngestBudget;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
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

/**
 * Slow bodies on the running service (issue 50): eight raw connections each send the head of a batch declaring
 * 8 MiB ({@code Content-Length: 8388608}, together the whole default {@code dispatcher.ingest.max-queued-bytes} of
 * 64 MiB) and then trickle a byte at a time. The budget holds at most 64 KiB of each until more arrives, so every other producer's
 * single message and small batch is answered {@code 202} meanwhile; each slow body is answered {@code 408}
 * ({@code body-timeout}) at {@code dispatcher.ingest.body-timeout} (3 s here) and the budget returns to zero. A
 * request head trickled the same way has its connection closed ({@link RequestHeadDeadline}).
 */
class SlowBodiesIT {

    private static final int SLOW = 8;
    private static final long DECLARED = 8_388_608;
    private static final String TOKEN = "slow-bodies-" + UUID.randomUUID();
    private static final String SCHEMA = "slow_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    private static ConfigurableApplicationContext context;
    private static String baseUrl;

    @BeforeAll
    static void start() {
        Map<String, Object> properties = DispatcherTestProperties.forSchema(SCHEMA);
        properties.put("dispatcher.worker-id", "slow-bodies-it");
        properties.put("dispatcher.ingest.body-timeout", "3s");
        SlowClients.producerToken(properties, 0, "producer", TOKEN);
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
    void slowBodiesHoldAtMostTheirFirst64KibAndEndWith408AtTheBodyTimeout() throws Exception {
        IngestBudget budget = context.getBean(IngestBudget.class);
        String topic = "slow." + UUID.randomUUID();
        // Jackson builds its deserializers under a lock on first use: one request alone before the test
        assertThat(send("/v1/messages", IngestApiIT.item(null, topic + ".warm", "k", "1")).get(60, TimeUnit.SECONDS)
                .statusCode()).isEqualTo(202);
        List<Socket> sockets = new ArrayList<>();
        ScheduledExecutorService trickle = Executors.newScheduledThreadPool(1);
        ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<CompletableFuture<String>> slowAnswers = new ArrayList<>();
            for (int i = 0; i < SLOW; i++) {
                Socket socket = SlowClients.slowPost(baseUrl, "/v1/messages/batch", TOKEN, DECLARED, "[", trickle);
                sockets.add(socket);
                slowAnswers.add(CompletableFuture.supplyAsync(() -> SlowClients.readUntilClosed(socket), readers));
            }
            await("the " + SLOW + " slow bodies admitted").atMost(Duration.ofSeconds(10))
                    .until(() -> budget.requests() >= SLOW);
            assertThat(budget.reservedBytes()).as("they hold at most their first 64 KiB, not the %d bytes each"
                    + " declared", DECLARED).isLessThanOrEqualTo(SLOW * 64 * 1024);

            List<CompletableFuture<HttpResponse<String>>> others = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                others.add(send("/v1/messages", IngestApiIT.item(null, topic, "k-" + i, "1")));
                others.add(send("/v1/messages/batch", "[" + IngestApiIT.item(null, topic, "b-" + i, "1") + ","
                        + IngestApiIT.item(null, topic, "b-" + i, "2") + "]"));
            }
            for (CompletableFuture<HttpResponse<String>> other : others) {
                HttpResponse<String> answer = other.get(60, TimeUnit.SECONDS);
                assertThat(answer.statusCode()).as("another producer beside the slow bodies: %s", answer.body())
                        .isEqualTo(202);
            }

            await("every slow body answered").atMost(Duration.ofSeconds(20))
                    .until(() -> slowAnswers.stream().allMatch(CompletableFuture::isDone));
            for (CompletableFuture<String> slow : slowAnswers) {
                assertThat(slow.get()).startsWith("HTTP/1.1 408")
                        .contains("application/problem+json", "https://dispatcher.dev/problems/body-timeout",
                                "dispatcher.ingest.body-timeout");
            }
            await("the budget back to zero").atMost(Duration.ofSeconds(10))
                    .until(() -> budget.reservedBytes() == 0 && budget.requests() == 0);
        } finally {
            trickle.shutdownNow();
            readers.shutdownNow();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    /**
     * A request head trickled a byte at a time has its connection closed {@link RequestHeadDeadline#TIMEOUT} after
     * the connection opened, although each byte resets {@code server.netty.idle-timeout}.
     */
    @Test
    void aTrickledRequestHeadHasItsConnectionClosed() throws Exception {
        URI uri = URI.create(baseUrl);
        ScheduledExecutorService trickle = Executors.newScheduledThreadPool(1);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            long started = System.nanoTime();
            out.write("POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            trickle.scheduleAtFixedRate(() -> SlowClients.trickleOneByte(out), 200, 200, TimeUnit.MILLISECONDS);
            String answer = SlowClients.readUntilClosed(socket);
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(answer).as("closed without an answer").isEmpty();
            assertThat(millis).as("closed at the head deadline, not before and not never")
                    .isBetween(RequestHeadDeadline.TIMEOUT.toMillis() - 500,
                            RequestHeadDeadline.TIMEOUT.toMillis() + 10_000);
        } finally {
            trickle.shutdownNow();
        }
    }

    /** On a kept-alive connection, the deadline runs from the first byte of the next request's head. */
    @Test
    void aTrickledSecondRequestHeadOnAKeptAliveConnectionHasItClosed() throws Exception {
        URI uri = URI.create(baseUrl);
        ScheduledExecutorService trickle = Executors.newScheduledThreadPool(1);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /actuator/health HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readOneResponseHead(socket.getInputStream())).startsWith("HTTP/1.1 200");
            long started = System.nanoTime();
            out.write("GET /actuator/health HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            trickle.scheduleAtFixedRate(() -> SlowClients.trickleOneByte(out), 200, 200, TimeUnit.MILLISECONDS);
            SlowClients.readUntilClosed(socket);
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertThat(millis).as("closed at the head deadline of the second request")
                    .isBetween(RequestHeadDeadline.TIMEOUT.toMillis() - 500,
                            RequestHeadDeadline.TIMEOUT.toMillis() + 10_000);
        } finally {
            trickle.shutdownNow();
        }
    }

    /** A response's head and its {@code Content-Length} bytes of body, read without waiting for a close. */
    static String readOneResponseHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("the response head, before the end of the stream").isNotNegative();
            head.write(b);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = Integer.parseInt(text.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT)
                .startsWith("content-length:")).findFirst().orElseThrow().substring(15).trim());
        assertThat(in.readNBytes(length)).hasSize(length);
        return text;
    }

    private static CompletableFuture<HttpResponse<String>> send(String path, String body) {
        return SlowClients.post(baseUrl, TOKEN, path, body);
    }
}
