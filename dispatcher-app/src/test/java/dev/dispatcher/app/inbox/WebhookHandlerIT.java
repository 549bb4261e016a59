package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dispatcher.app.observe.DispatcherMetrics;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.web.reactive.function.client.WebClient;

/** The built-in webhook handler against a local HTTP server: transient failures retry, 4xx dead-letters. */
class WebhookHandlerIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * The slow webhook's time-out: its first call is answered only once the handler, having timed out, called again,
     * and every later call must fit in it, so it leaves a quick answer room on a loaded machine (five time-outs in a
     * row dead-letter the message).
     */
    private static final Duration SLOW_TIMEOUT = Duration.ofSeconds(1);

    /** One received call: path, Idempotency-Key, Content-Type, Event-Type, body. */
    record Call(String path, String idempotencyKey, String contentType, String eventType, String body) {
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final AtomicInteger flakyCalls = new AtomicInteger();
    private final AtomicInteger slowCalls = new AtomicInteger();
    private final CountDownLatch slowCalledAgain = new CountDownLatch(1);
    private HttpServer server;
    private ExecutorService executor;

    @BeforeEach
    void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        executor = Executors.newCachedThreadPool();
        server.setExecutor(executor);
        server.createContext("/flaky", ex -> answer(ex, flakyCalls.incrementAndGet() <= 2 ? 503 : 200));
        server.createContext("/reject", ex -> answer(ex, 400));
        server.createContext("/slow", ex -> {
            record(ex);
            if (slowCalls.incrementAndGet() == 1) {
                // held until the handler, having timed out, calls again: it outlasts the time-out on any machine
                try {
                    slowCalledAgain.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                slowCalledAgain.countDown();
            }
            respond(ex, 204);
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void answer(HttpExchange ex, int status) throws java.io.IOException {
        record(ex);
        respond(ex, status);
    }

    private void record(HttpExchange ex) throws java.io.IOException {
        String body = new String(ex.getRequestBody().readAllBytes());
        calls.add(new Call(ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("Idempotency-Key"),
                ex.getRequestHeaders().getFirst("Content-Type"), ex.getRequestHeaders().getFirst("Event-Type"), body));
    }

    private static void respond(HttpExchange ex, int status) {
        try {
            ex.sendResponseHeaders(status, -1);
        } catch (java.io.IOException e) {
            // the client gave up (time-out): nothing to answer
        }
        ex.close();
    }

    private WebhookHandler webhook(String path, Duration timeout) {
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        return new WebhookHandler(WebClient.builder().build(), url, timeout);
    }

    @Test
    void transientFailuresAreRetriedUntilCompletedAndA400IsDeadLetteredAtOnce() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_webhook")) {
            String flakyTopic = fx.topic("hook-flaky", 1);
            String rejectTopic = fx.topic("hook-reject", 1);
            String slowTopic = fx.topic("hook-slow", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(flakyTopic, "hook-flaky"), webhook("/flaky", Duration.ofSeconds(5)),
                    InboxFixture.settings("hook-flaky", "hooks-1"), metrics);
            fx.consumer(fx.receiver(rejectTopic, "hook-reject"), webhook("/reject", Duration.ofSeconds(5)),
                    InboxFixture.settings("hook-reject", "hooks-1"), metrics);
            fx.consumer(fx.receiver(slowTopic, "hook-slow"), webhook("/slow", SLOW_TIMEOUT),
                    InboxFixture.settings("hook-slow", "hooks-1"), metrics);

            fx.send(flakyTopic, 0, "w-flaky", "{\"a\":1}");
            fx.send(rejectTopic, 0, "w-reject", "{\"a\":2}");
            fx.send(slowTopic, 0, "w-slow", "{\"a\":3}");

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'w-flaky'"
                    + " AND status = 'COMPLETED' AND attempts = 3", 1, WAIT);
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'w-reject'"
                    + " AND status = 'DEAD_LETTERED' AND attempts = 1 AND last_error LIKE '%answered 400%'", 1, WAIT);
            // a time-out is transient: at least one retry (a cold client on a loaded machine may time out twice)
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'w-slow'"
                    + " AND status = 'COMPLETED' AND attempts >= 2", 1, WAIT);

            assertThat(calls.stream().filter(c -> c.path().equals("/flaky")).map(Call::idempotencyKey))
                    .containsExactly("w-flaky", "w-flaky", "w-flaky");
            assertThat(calls.stream().filter(c -> c.path().equals("/reject")).map(Call::idempotencyKey))
                    .containsExactly("w-reject");
            assertThat(calls.stream().filter(c -> c.path().equals("/slow")).map(Call::idempotencyKey))
                    .hasSizeGreaterThanOrEqualTo(2).containsOnly("w-slow");
            assertThat(calls).allSatisfy(c -> {
                assertThat(c.idempotencyKey()).isNotBlank();
                assertThat(c.contentType()).isEqualTo("application/json");
                assertThat(c.eventType()).isEqualTo("TestEvent");
            });
            assertThat(calls.stream().filter(c -> c.path().equals("/flaky")).map(Call::body))
                    .containsOnly("{\"a\":1}");
            // a consumer counts a message after its commit, which this thread may have seen first
            InboxFixture.await("the outcomes counted", () -> InboxFixture.counter(metrics, "succeeded") >= 2
                    && InboxFixture.counter(metrics, "dead_lettered") >= 1
                    && InboxFixture.counter(metrics, "failed") >= 4, WAIT);
            assertThat(InboxFixture.counter(metrics, "succeeded")).isEqualTo(2);
            assertThat(InboxFixture.counter(metrics, "dead_lettered")).isEqualTo(1);
            assertThat(InboxFixture.counter(metrics, "failed")).isGreaterThanOrEqualTo(4);
        }
    }
}
