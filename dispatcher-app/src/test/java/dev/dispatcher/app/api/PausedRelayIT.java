package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.Invariants;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Issue 10's hanging resume: with the relay paused, every outbox notification woke its claim loop, which then
 * repeated its gate at once, forever, on the R2DBC event loop that delivered the notification; every statement of
 * the connections served by that loop waited behind it (resume for 10 minutes, stats never). Here: pause, ingest
 * (each insert notifies) with some clients going away mid-request, then resume and stats must answer within a
 * bound, the pool must get all its connections back, and the relay must deliver what was ingested.
 */
class PausedRelayIT extends ApiTestSupport {

    private static final Duration BOUND = Duration.ofSeconds(5);

    @Autowired
    ConnectionFactory connectionFactory;

    @Test
    void resumeAndStatsAnswerPromptlyAfterIngestWhilePaused() throws Exception {
        operator().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange().expectStatus()
                .isOk();
        try {
            String topic = uniqueTopic("paused");
            List<UUID> accepted = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                UUID id = UUID.randomUUID();
                producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(IngestApiIT.item(id, topic, "k" + (i % 8), "1"))
                        .exchange().expectStatus().isAccepted();
                accepted.add(id);
                sendAndHangUp(IngestApiIT.item(UUID.randomUUID(), topic, "k" + (i % 8), "2"), 0);
            }
            // ingest settled: every insert committed and notified, so the paused claim loop has notifications
            // and poll ticks to react to while it is watched
            ConnectionPool pool = (ConnectionPool) connectionFactory;
            awaitTrue("ingest settled: the pool has all its connections back",
                    () -> pool.getMetrics().orElseThrow().acquiredSize() == 0);
            assertNoThreadOfTheServiceIsBusy(Duration.ofSeconds(1));
            assertEveryPooledConnectionAnswers(pool);

            WebTestClient bounded = http.mutate().responseTimeout(BOUND)
                    .defaultHeaders(h -> h.setBasicAuth("operator", "operator-pw")).build();
            long started = System.nanoTime();
            bounded.get().uri("/v1/stats").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(true);
            bounded.post().uri("/v1/relay/resume").contentType(MediaType.APPLICATION_JSON).exchange().expectStatus()
                    .isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(false);
            bounded.get().uri("/v1/stats").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(false);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(BOUND);

            awaitTrue("the pool has all its connections back", () -> pool.getMetrics().orElseThrow().acquiredSize() == 0);
            awaitTrue("the relay delivers what was ingested while paused", () -> count(
                    "SELECT count(*) FROM outbox_message WHERE status = 'DELIVERED' AND id = ANY(?::uuid[])",
                    (Object) accepted.stream().map(UUID::toString).toArray(String[]::new)) == accepted.size());
        } finally {
            operator().post().uri("/v1/relay/resume").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk();
        }
    }

    /**
     * Nothing runs while the relay is paused and no request is in flight: a thread of the service's event loops or
     * schedulers that used more than a third of {@code window} of CPU is spinning. (Run with the gate's old
     * wait, this sees reactor-tcp-epoll-3 at 991 ms of 1,000.)
     */
    private static void assertNoThreadOfTheServiceIsBusy(Duration window) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> before = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
            before.put(id, threads.getThreadCpuTime(id));
        }
        Invariants.holdFor("no thread of the service busy for " + window, window, Duration.ofMillis(100), () -> {
            for (long id : threads.getAllThreadIds()) {
                ThreadInfo info = threads.getThreadInfo(id);
                Long start = before.get(id);
                long cpu = threads.getThreadCpuTime(id);
                if (info != null && start != null && start >= 0 && cpu >= 0
                        && info.getThreadName().matches("(reactor-|parallel-|boundedElastic-).*")) {
                    assertThat(Duration.ofNanos(cpu - start))
                            .as("CPU used by " + info.getThreadName() + " in " + window)
                            .isLessThan(window.dividedBy(3));
                }
            }
        });
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) {
        await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }
}
