package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.OpsTestSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The inbox dead letters' operator API on the running service (its consumer {@link #CONSUMER} POSTs to a webhook
 * that answers 200): listing with the reason and raw key, replay of one message with {@code If-Match} (stale
 * version and lost race answered 409 with the current row, as the outbox's), bulk replay by filter, the audit rows
 * of each, and problems for bad input and unknown consumers. Durable state is read through a separate connection.
 */
class InboxOperatorApiIT extends OpsTestSupport {

    private static final byte[] AVRO_KEY = {0x00, 0x00, 0x00, 0x00, 0x05, 0x02, 'k'};

    @Test
    void deadLettersArePagedWithTheirReasonRawKeyAndWhetherTheirValueWasStored() {
        String run = UUID.randomUUID().toString();
        String binary = seedInboxDeadLetter(run + "-bin", null, AVRO_KEY, "{\"n\":1}",
                "header 'x' is not UTF-8 text " + run);
        String text = seedInboxDeadLetter(run + "-txt", "order-7", null, "{\"n\":2}", "webhook answered 422 " + run);
        String unstored = seedInboxDeadLetter(run + "-big", "order-8", null, null,
                "value of 9 bytes is over the limit " + run);

        Map<?, ?> all = pageAfter(null, 1000);
        List<?> mine = ((List<?>) all.get("items")).stream()
                .filter(i -> ((String) ((Map<?, ?>) i).get("messageId")).startsWith(run)).toList();
        assertThat(mine.stream().map(i -> (String) ((Map<?, ?>) i).get("messageId")).toList())
                .containsExactly(binary, text, unstored);
        Map<?, ?> b = (Map<?, ?>) mine.get(0);
        assertThat(b.get("key")).isNull();
        assertThat(Base64.getDecoder().decode((String) b.get("keyBase64"))).isEqualTo(AVRO_KEY);
        assertThat(b.get("lastError")).isEqualTo("header 'x' is not UTF-8 text " + run);
        assertThat(b.get("sourceTopic")).isEqualTo(TRACED_TOPIC);
        assertThat(b.get("status")).isEqualTo("DEAD_LETTERED");
        assertThat(b.get("payloadStored")).isEqualTo(true);
        assertThat(((Map<?, ?>) mine.get(1)).get("key")).isEqualTo("order-7");
        assertThat(((Map<?, ?>) mine.get(2)).get("payloadStored")).isEqualTo(false);
        assertThat(((Map<?, ?>) mine.get(2)).get("payloadSize")).isNull();

        // a cursor continues after the last row of a page
        Map<?, ?> first = pageAfter(null, 1);
        assertThat(first.get("nextCursor")).isNotNull();
        Map<?, ?> second = pageAfter((String) first.get("nextCursor"), 1);
        assertThat(((Number) ((Map<?, ?>) ((List<?>) second.get("items")).getFirst()).get("seq")).longValue())
                .isGreaterThan(((Number) ((Map<?, ?>) ((List<?>) first.get("items")).getFirst()).get("seq"))
                        .longValue());
    }

    @Test
    void badInputAndUnknownConsumersAreProblems() {
        as(OPERATOR).get().uri("/v1/inbox/nobody/dead-letters").exchange()
                .expectStatus().isNotFound()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody().jsonPath("$.detail").value(d -> assertThat((String) d).contains("nobody"));
        as(OPERATOR).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters?limit=0").exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.field").isEqualTo("limit");
        as(OPERATOR).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters?cursor=nonsense").exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.field").isEqualTo("cursor");
        as(OPERATOR).post().uri("/v1/inbox/nobody/messages/x/replay")
                .contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"0\"").exchange()
                .expectStatus().isNotFound();
        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/messages/" + UUID.randomUUID() + "/replay")
                .contentType(MediaType.APPLICATION_JSON)
                .header("If-Match", "\"0\"").exchange()
                .expectStatus().isNotFound();
        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/dead-letters/replay")
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"topics\":\"x\"}").exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.field").isEqualTo("topics");
        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/dead-letters/replay")
                .contentType(MediaType.TEXT_PLAIN).bodyValue("limit=5").exchange()
                .expectStatus().isEqualTo(415);
        as(OPERATOR).post().uri("/v1/inbox/nobody/dead-letters/replay")
                .contentType(MediaType.APPLICATION_JSON).exchange().expectStatus().isNotFound();
        as(PRODUCER).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters").exchange().expectStatus().isForbidden();
    }

    @Test
    void oneDeadLetterIsReplayedWithIfMatchAuditedAndThenHandled() {
        String id = seedInboxDeadLetter(UUID.randomUUID() + "-one", null, AVRO_KEY, "{\"replay\":\"me\"}",
                "webhook answered 503");
        String path = "/v1/inbox/" + CONSUMER + "/messages/" + id + "/replay";

        as(OPERATOR).post().uri(path).contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isEqualTo(428)
                .expectBody().jsonPath("$.field").isEqualTo("If-Match");
        as(OPERATOR).post().uri(path).contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"3\"").exchange()
                .expectStatus().isEqualTo(409)
                .expectBody()
                .jsonPath("$.type").value(t -> assertThat((String) t).endsWith("/version-mismatch"))
                .jsonPath("$.current.status").isEqualTo("DEAD_LETTERED")
                .jsonPath("$.current.version").isEqualTo(0);
        as(OPERATOR).post().uri(path).contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"0\"").exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("ETag", "\"1\"")
                .expectBody()
                .jsonPath("$.status").isEqualTo("PENDING")
                .jsonPath("$.attempts").isEqualTo(0)
                .jsonPath("$.version").isEqualTo(1);
        // a stale list row: the same version again is refused with the current row, nothing changes
        as(OTHER_OPERATOR).post().uri(path)
                .contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"0\"").exchange()
                .expectStatus().isEqualTo(409)
                .expectBody().jsonPath("$.current.version").value(v -> assertThat(((Number) v).longValue())
                        .isGreaterThanOrEqualTo(1));

        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND queue = 'inbox'"
                + " AND action = 'replay' AND actor = ? AND detail ->> 'consumer' = ?"
                + " AND before_state ->> 'status' = 'DEAD_LETTERED' AND after_state ->> 'status' = 'PENDING'"
                + " AND (after_state ->> 'version')::int = 1", id, OPERATOR, CONSUMER)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ?", id)).isEqualTo(1);
        // the consumer handles the replayed message: the webhook gets it with its raw key
        await().atMost(Duration.ofSeconds(30)).until(() -> "COMPLETED".equals(
                text("SELECT status FROM inbox_message WHERE consumer_name = ? AND message_id = ?", CONSUMER, id)));
        assertThat(WEBHOOK.requests()).anyMatch(r -> id.equals(r.header("Idempotency-Key"))
                && Base64.getEncoder().encodeToString(AVRO_KEY).equals(r.header("Message-Key-Base64")));
    }

    @Test
    void aDeadLetterWhoseValueWasNotStoredIsNeverReplayed() {
        String id = seedInboxDeadLetter(UUID.randomUUID() + "-unstored", "k", null, null, "value over the limit");
        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/messages/" + id + "/replay")
                .contentType(MediaType.APPLICATION_JSON).header("If-Match", "\"0\"")
                .exchange()
                .expectStatus().isEqualTo(409)
                .expectBody()
                .jsonPath("$.type").value(t -> assertThat((String) t).endsWith("/illegal-transition"))
                .jsonPath("$.detail").value(d -> assertThat((String) d).contains("cannot be replayed")
                        .contains(TRACED_TOPIC + "/0@"))
                .jsonPath("$.current.payloadStored").isEqualTo(false);
        assertThat(text("SELECT status FROM inbox_message WHERE message_id = ?", id)).isEqualTo("DEAD_LETTERED");
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ?", id)).isZero();
    }

    @Test
    void twoOperatorsReplayingTheSameVersionGetOneSuccessAndOneConflict() throws Exception {
        String id = seedInboxDeadLetter(UUID.randomUUID() + "-race", "k", null, "{}", "webhook answered 500");
        WebClient client = WebClient.builder().baseUrl(baseUrl()).build();
        List<Integer> statuses;
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement(
                    "SELECT 1 FROM inbox_message WHERE consumer_name = ? AND message_id = ? FOR UPDATE")) {
                lock.setString(1, CONSUMER);
                lock.setString(2, id);
                lock.execute();
            }
            var both = Flux.merge(replay(client, OPERATOR, id), replay(client, OTHER_OPERATOR, id))
                    .collectList().toFuture();
            // both requests wait on the row (pg_blocking_pids: the holder, or the request queued ahead), then go
            await("both replays waiting on the row lock").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> count("SELECT count(*) FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid))"
                            + " > 0 AND query LIKE '%FOR NO KEY UPDATE%' AND query LIKE '%inbox_message%'") >= 2);
            holder.commit();
            statuses = both.get(30, TimeUnit.SECONDS);
        }
        assertThat(statuses).containsExactlyInAnyOrder(200, 409);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND action = 'replay'", id))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM inbox_message WHERE message_id = ? AND version = 1", id)).isEqualTo(1);
    }

    @Test
    void deadLettersMatchingAFilterAreReplayedInBulkAuditedEach() {
        String error = "schema registry timeout " + UUID.randomUUID();
        List<String> matching = List.of(seedInboxDeadLetter(UUID.randomUUID() + "-b1", "a", null, "{}", error),
                seedInboxDeadLetter(UUID.randomUUID() + "-b2", null, AVRO_KEY, "{}", error),
                seedInboxDeadLetter(UUID.randomUUID() + "-b3", "b", null, "{}", error));
        String unstored = seedInboxDeadLetter(UUID.randomUUID() + "-b4", "a", null, null, error);
        String other = seedInboxDeadLetter(UUID.randomUUID() + "-b5", "a", null, "{}", "something else");

        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/dead-letters/replay")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"errorContains\":\"" + error + "\",\"topic\":\"" + TRACED_TOPIC + "\",\"limit\":10}")
                .exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.replayed").isEqualTo(3)
                .jsonPath("$.ids").value(ids -> assertThat(((List<?>) ids).stream().map(Object::toString).toList())
                        .containsExactlyElementsOf(matching));

        for (String id : matching) {
            assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND queue = 'inbox'"
                    + " AND action = 'replay' AND actor = ? AND (detail ->> 'bulk')::boolean"
                    + " AND detail ->> 'consumer' = ? AND before_state ->> 'status' = 'DEAD_LETTERED'"
                    + " AND after_state ->> 'status' = 'PENDING'", id, OPERATOR, CONSUMER)).isEqualTo(1);
        }
        assertThat(text("SELECT status FROM inbox_message WHERE message_id = ?", unstored)).isEqualTo("DEAD_LETTERED");
        assertThat(text("SELECT status FROM inbox_message WHERE message_id = ?", other)).isEqualTo("DEAD_LETTERED");
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM inbox_message WHERE"
                + " message_id IN (?, ?, ?) AND status = 'COMPLETED'", matching.toArray()) == 3);

        // the key filter is a text key's
        String keyed = seedInboxDeadLetter(UUID.randomUUID() + "-b6", "only-me-" + error.hashCode(), null, "{}", "x");
        as(OPERATOR).post().uri("/v1/inbox/" + CONSUMER + "/dead-letters/replay")
                .contentType(MediaType.APPLICATION_JSON).bodyValue("{\"key\":\"only-me-" + error.hashCode() + "\"}")
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.ids[0]").isEqualTo(keyed).jsonPath("$.replayed").isEqualTo(1);
    }

    // ---- helpers

    private Map<?, ?> pageAfter(String cursor, int limit) {
        return as(OPERATOR).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters?limit=" + limit
                        + (cursor == null ? "" : "&cursor=" + cursor))
                .exchange().expectStatus().isOk().expectBody(Map.class).returnResult().getResponseBody();
    }

    private static Mono<Integer> replay(WebClient client, String user, String id) {
        return client.post().uri("/v1/inbox/{consumer}/messages/{id}/replay", CONSUMER, id)
                .contentType(MediaType.APPLICATION_JSON)
                .headers(h -> h.setBasicAuth(user, password(user)))
                .header("If-Match", "\"0\"")
                .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode()))
                .map(HttpStatusCode::value);
    }
}
