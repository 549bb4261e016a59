package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Ingest under the faults issue 10 found: requests with one id racing each other, a key lock held past the lock
 * timeout, and clients that go away mid-request. Each race is made to happen: a JDBC connection holds the key's
 * writer lock until the ingest statement is seen blocked on it ({@code pg_blocking_pids}), with every racing
 * request queued behind it. Durable state is read through fresh connections.
 */
class IngestFaultsIT extends ApiTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Autowired
    ConnectionFactory connectionFactory;

    @Test
    void concurrentRequestsWithOneIdAndTheSameContentGetOne202AndOnly200s() throws Exception {
        String topic = uniqueTopic("same-id");
        String key = "k-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        Map<Integer, Long> statuses = race(key, 20, i -> IngestApiIT.item(id, topic, key, "1"));

        assertThat(statuses).containsOnlyKeys(202, 200).containsEntry(202, 1L).containsEntry(200, 19L);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?", id)).isEqualTo(1);
    }

    @Test
    void concurrentRequestsWithOneIdAndOtherContentGet409() throws Exception {
        String topic = uniqueTopic("same-id-other");
        String key = "k-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        String stored;
        try (Connection holder = holdKeyLock(key)) {
            for (int i = 0; i < 20; i++) {
                answers.add(post(IngestApiIT.item(id, topic, key, i % 2 == 0 ? "\"a\"" : "\"b\"")));
            }
            IngestConcurrencyIT.awaitBlockedBy(backendPid(holder));
            holder.commit();
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<Integer> answer : answers) {
            statuses.add(answer.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(
                "SELECT convert_from(payload, 'UTF8') FROM outbox_message WHERE id = ?")) {
            q.setObject(1, id);
            try (var rows = q.executeQuery()) {
                assertThat(rows.next()).isTrue();
                stored = rows.getString(1);
                assertThat(rows.next()).as("one row").isFalse();
            }
        }
        assertThat(statuses).filteredOn(s -> s == 202).hasSize(1);
        for (int i = 0; i < statuses.size(); i++) {
            boolean winnersContent = (i % 2 == 0 ? "\"a\"" : "\"b\"").equals(stored);
            assertThat(statuses.get(i)).as("request %d", i).isIn(winnersContent ? List.of(202, 200) : List.of(409));
        }
    }

    @Test
    void aKeyLockHeldPastTheLockTimeoutAnswers503AndWritesNothing() throws Exception {
        String topic = uniqueTopic("lock-timeout");
        String key = "k-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        try (Connection holder = holdKeyLock(key)) {
            long started = System.nanoTime();
            var answer = WebClient.builder().baseUrl("http://localhost:" + port).build()
                    .post().uri("/v1/messages")
                    .header(HttpHeaders.AUTHORIZATION, producerAuthorization())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(IngestApiIT.item(id, topic, key, "1"))
                    .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
                            .map(body -> Map.entry(response, body)))
                    .toFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(answer.getKey().statusCode().value()).isEqualTo(503);
            assertThat(answer.getKey().headers().header("Retry-After")).isNotEmpty();
            assertThat(answer.getKey().headers().contentType()).hasValueSatisfying(
                    t -> assertThat(t.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue());
            assertThat(answer.getValue()).contains("nothing was written");
            assertThat(took).isGreaterThanOrEqualTo(LOCK_TIMEOUT).isLessThan(LOCK_TIMEOUT.plusSeconds(10));
            holder.commit();
        }
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?", id)).as("nothing written").isZero();
        // the key is usable again at once
        producing().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(IngestApiIT.item(id, topic, key, "1")).exchange().expectStatus().isAccepted();
    }

    @Test
    void clientsThatDisconnectMidRequestNeverCostAConnection() throws Exception {
        String topic = uniqueTopic("disconnect");
        String key = "k-" + UUID.randomUUID();
        List<UUID> sent = new ArrayList<>();
        // half the requests wait behind a held key lock while their clients go away, the others race the writes
        try (Connection holder = holdKeyLock(key)) {
            for (int i = 0; i < 100; i++) {
                UUID id = UUID.randomUUID();
                sent.add(id);
                sendAndHangUp(IngestApiIT.item(id, topic, i % 2 == 0 ? key : "other-" + i, "1"), i % 7);
            }
            holder.commit();
        }
        ConnectionPool pool = (ConnectionPool) connectionFactory;
        await("pooled connections all given back").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> pool.getMetrics().orElseThrow().acquiredSize() == 0);
        assertEveryPooledConnectionAnswers(pool);
        // and the API answers
        producing().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(IngestApiIT.item(UUID.randomUUID(), topic, key, "1")).exchange().expectStatus().isAccepted();
        // rows of requests whose clients went away exist at most once
        assertThat(count("SELECT count(*) - count(DISTINCT id) FROM outbox_message WHERE topic = ?", topic)).isZero();
    }

    // ---- helpers

    /** Posts {@code n} bodies while the key's writer lock is held, lets them go together, and counts the statuses. */
    private Map<Integer, Long> race(String key, int n, Function<Integer, String> body) throws Exception {
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        try (Connection holder = holdKeyLock(key)) {
            for (int i = 0; i < n; i++) {
                answers.add(post(body.apply(i)));
            }
            IngestConcurrencyIT.awaitBlockedBy(backendPid(holder));
            holder.commit();
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<Integer> answer : answers) {
            statuses.add(answer.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        return statuses.stream().collect(Collectors.groupingBy(s -> s, Collectors.counting()));
    }

    /** A connection in a transaction holding {@code key}'s writer lock (the one every producer of it takes). */
    private static Connection holdKeyLock(String key) throws Exception {
        Connection holder = jdbc();
        holder.setAutoCommit(false);
        try (PreparedStatement lock = holder.prepareStatement(OutboxSql.LOCK_KEY.replace("$1", "?"))) {
            lock.setString(1, key);
            lock.execute();
        }
        return holder;
    }
}
