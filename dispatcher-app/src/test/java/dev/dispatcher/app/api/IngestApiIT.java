package dev.dispatcher.app.api;

import dev.dispatcher.app.Invariants;
import dev.dispatcher.app.ingest.Ingest;
import dev.dispatcher.app.ingest.IngestProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

/** Ingest: 202 for new messages, 200 for a repeat, 409 for a conflicting repeat, batches, 413 and 429. */
class IngestApiIT extends ApiTestSupport {

    @Test
    void aNewMessageIsAcceptedAndStoredAsCompactJson() throws SQLException {
        UUID id = UUID.randomUUID();
        String topic = uniqueTopic("ingest");
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"key\":\"order-1\",\"type\":\"OrderPlaced\","
                        + "\"payload\": {\"orderId\": 1, \"amount\": 12.50},\"headers\":{\"traceparent\":\"00-abc\"},"
                        + "\"correlationId\":\"corr-1\"}")
                .exchange()
                .expectStatus().isAccepted()
                .expectHeader().location("/v1/messages/" + id)
                .expectBody()
                .jsonPath("$.id").isEqualTo(id.toString())
                .jsonPath("$.status").isEqualTo("PENDING");

        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement("SELECT topic, message_key, event_type,"
                + " payload, content_type, headers->>'traceparent', correlation_id FROM outbox_message WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo(topic);
                assertThat(row.getString(2)).isEqualTo("order-1");
                assertThat(row.getString(3)).isEqualTo("OrderPlaced");
                assertThat(new String(row.getBytes(4), StandardCharsets.UTF_8)).isEqualTo("{\"orderId\":1,\"amount\":12.50}");
                assertThat(row.getString(5)).isEqualTo("application/json");
                assertThat(row.getString(6)).isEqualTo("00-abc");
                assertThat(row.getString(7)).isEqualTo("corr-1");
            }
        }
    }

    @Test
    void aMessageWithoutIdGetsOne() {
        Map<?, ?> body = producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + uniqueTopic("noid") + "\",\"type\":\"T\",\"payload\":[1,2,3]}")
                .exchange()
                .expectStatus().isAccepted()
                .expectBody(Map.class).returnResult().getResponseBody();
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?::uuid", body.get("id"))).isEqualTo(1);
    }

    @Test
    void aBinaryPayloadIsSentAsBase64AndStoredDecoded() throws SQLException {
        UUID id = UUID.randomUUID();
        byte[] bytes = {0, 1, 2, (byte) 0xff};
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + uniqueTopic("bin") + "\",\"type\":\"Blob\","
                        + "\"contentType\":\"application/octet-stream\",\"payload\":\""
                        + Base64.getEncoder().encodeToString(bytes) + "\"}")
                .exchange()
                .expectStatus().isAccepted();
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(
                "SELECT payload, content_type FROM outbox_message WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getBytes(1)).containsExactly(bytes);
                assertThat(row.getString(2)).isEqualTo("application/octet-stream");
            }
        }
    }

    @Test
    void theSameIdWithTheSameContentIs200WithTheExistingEntryAndWritesNothing() {
        UUID id = UUID.randomUUID();
        String body = "{\"id\":\"" + id + "\",\"topic\":\"" + uniqueTopic("dup") + "\",\"type\":\"T\",\"payload\":{\"a\":1}}";
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchange().expectStatus().isAccepted();
        long rows = outboxRows();

        // whitespace differs, content does not
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body.replace("{\"a\":1}", "{ \"a\" : 1 }"))
                .exchange()
                .expectStatus().isOk()
                .expectHeader().exists("ETag")
                .expectBody()
                .jsonPath("$.id").isEqualTo(id.toString())
                .jsonPath("$.version").exists();
        assertThat(outboxRows()).isEqualTo(rows);
    }

    @Test
    void theSameIdWithOtherContentIs409AndWritesNothing() {
        UUID id = UUID.randomUUID();
        String topic = uniqueTopic("conflict");
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"type\":\"T\",\"payload\":1}")
                .exchange().expectStatus().isAccepted();
        long rows = outboxRows();

        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"type\":\"T\",\"payload\":2}")
                .exchange()
                .expectStatus().isEqualTo(409)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.id").isEqualTo(id.toString())
                .jsonPath("$.detail").value(detail -> assertThat((String) detail).contains("different content"));
        assertThat(outboxRows()).isEqualTo(rows);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND payload = '2'::bytea", id)).isZero();
    }

    @Test
    void aBatchReportsAcceptedDuplicateAndConflictPerItem() {
        UUID existing = UUID.randomUUID();
        UUID conflicting = UUID.randomUUID();
        UUID fresh = UUID.randomUUID();
        String topic = uniqueTopic("batch");
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(item(existing, topic, "k1", "1")).exchange().expectStatus().isAccepted();
        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(item(conflicting, topic, "k2", "1")).exchange().expectStatus().isAccepted();
        long rows = outboxRows();

        producer().post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + String.join(",", List.of(item(fresh, topic, "k1", "1"), item(existing, topic, "k1", "1"),
                        item(conflicting, topic, "k2", "2"), item(null, topic, null, "3"))) + "]")
                .exchange()
                .expectStatus().isAccepted()
                .expectBody()
                .jsonPath("$.results.length()").isEqualTo(4)
                .jsonPath("$.results[0].result").isEqualTo("accepted")
                .jsonPath("$.results[0].id").isEqualTo(fresh.toString())
                .jsonPath("$.results[1].result").isEqualTo("duplicate")
                .jsonPath("$.results[2].result").isEqualTo("conflict")
                .jsonPath("$.results[3].result").isEqualTo("accepted");
        assertThat(outboxRows()).isEqualTo(rows + 2);
    }

    @Test
    void aBatchRepeatingAnIdComparesTheRepeatWithItsFirstOccurrenceAndKeepsRequestOrderInSeq() throws SQLException {
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        UUID unkeyed = UUID.randomUUID();
        String topic = uniqueTopic("batch-repeat");
        long rows = outboxRows();

        producer().post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + String.join(",", List.of(item(first, topic, "k", "{\"n\":1}"),
                        item(second, topic, "k", "[1,2,3]"), item(unkeyed, topic, null, "\"\""),
                        item(first, topic, "k", "{ \"n\" : 1 }"), item(second, topic, "k", "[3]"))) + "]")
                .exchange()
                .expectStatus().isAccepted()
                .expectBody()
                .jsonPath("$.results[0].result").isEqualTo("accepted")
                .jsonPath("$.results[1].result").isEqualTo("accepted")
                .jsonPath("$.results[2].result").isEqualTo("accepted")
                .jsonPath("$.results[3].result").isEqualTo("duplicate")
                .jsonPath("$.results[3].id").isEqualTo(first.toString())
                .jsonPath("$.results[4].result").isEqualTo("conflict")
                .jsonPath("$.results[4].id").isEqualTo(second.toString());
        assertThat(outboxRows()).isEqualTo(rows + 3);

        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(
                "SELECT id, payload FROM outbox_message WHERE topic = ? ORDER BY seq")) {
            q.setString(1, topic);
            try (ResultSet row = q.executeQuery()) {
                for (Object[] expected : List.of(new Object[] {first, "{\"n\":1}"}, new Object[] {second, "[1,2,3]"},
                        new Object[] {unkeyed, "\"\""})) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getObject(1)).isEqualTo(expected[0]);
                    assertThat(new String(row.getBytes(2), StandardCharsets.UTF_8)).isEqualTo(expected[1]);
                }
                assertThat(row.next()).isFalse();
            }
        }
    }

    @Test
    void aBatchWithOneInvalidItemWritesNothing() {
        long rows = outboxRows();
        String topic = uniqueTopic("atomic");
        producer().post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + item(UUID.randomUUID(), topic, "k", "1") + ",{\"topic\":\"" + topic + "\"}]")
                .exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.field").isEqualTo("[1].type");
        assertThat(outboxRows()).isEqualTo(rows);
    }

    @Test
    void aBacklogWhoseSeqRangeExceedsTheBoundIsCountedNotRefused() {
        // one old live row, then more finished rows than the limit: the cheap bound (seq range) is above the limit,
        // the live count far below it, and ingest must go on
        String topic = uniqueTopic("bound");
        execute("INSERT INTO outbox_message (topic, event_type, payload, visible_after) VALUES (?, 'Old', '{}'::bytea,"
                + " now() + interval '1 hour')", topic);
        execute("INSERT INTO outbox_message (topic, event_type, payload, status, delivered_at) SELECT ?, 'Done',"
                + " '{}'::bytea, 'DELIVERED', now() FROM generate_series(1, ?)", topic, MAX_BACKLOG + 1);
        try {
            long live = count("SELECT count(*) FROM outbox_message WHERE status IN ('PENDING', 'RETRY_SCHEDULED')");
            long bound = count("SELECT (SELECT max(seq) FROM outbox_message) - (SELECT min(seq) FROM outbox_message"
                    + " WHERE status IN ('PENDING', 'RETRY_SCHEDULED')) + 1");
            assertThat(bound).as("the seq range is above the limit").isGreaterThanOrEqualTo(MAX_BACKLOG);
            assertThat(live).as("the live rows are below it").isLessThan(MAX_BACKLOG);
            // accepted all along, across at least one background count of the backlog
            Invariants.holdFor("ingest accepted across the guard's next refresh",
                    Ingest.BACKLOG_CHECKED_EVERY.plusMillis(200), Duration.ofMillis(100),
                    () -> producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(item(UUID.randomUUID(), topic, null, "1"))
                            .exchange()
                            .expectStatus().isAccepted());
        } finally {
            execute("DELETE FROM outbox_message WHERE topic = ?", topic);
        }
    }

    @Test
    void aBacklogAtItsBoundIs429WithRetryAfter() {
        String topic = uniqueTopic("backlog");
        // a stored row: sending another message with its id writes nothing, whether it is refused or answered 409
        UUID stored = seed("PENDING", topic, null, null);
        long live = count("SELECT count(*) FROM outbox_message WHERE status IN ('PENDING', 'RETRY_SCHEDULED')");
        // a margin: rows other test classes left live (a retry of a topic created late) may be delivered meanwhile
        execute("INSERT INTO outbox_message (topic, event_type, payload, visible_after) SELECT ?, 'Filler',"
                + " '{}'::bytea, now() + interval '1 hour' FROM generate_series(1, ?)", topic, MAX_BACKLOG - live + 20);
        try {
            // the guard sees the backlog at its next background refresh, however late a loaded machine runs it
            awaitIngestAnswer("the guard refuses", item(stored, topic, null, "1"), 429);
            long rows = outboxRows();
            producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(item(UUID.randomUUID(), topic, null, "1"))
                    .exchange()
                    .expectStatus().isEqualTo(429)
                    .expectHeader().valueEquals("Retry-After", String.valueOf(IngestProblem.BacklogFull.RETRY_AFTER_SECONDS))
                    .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody().jsonPath("$.detail").value(d -> assertThat((String) d).contains("max-backlog"));
            assertThat(outboxRows()).isEqualTo(rows);
        } finally {
            execute("DELETE FROM outbox_message WHERE topic = ?", topic);
        }
        // refused requests write nothing, so the first accepted one is the only one written
        awaitIngestAnswer("the guard lets ingest in again", item(UUID.randomUUID(), uniqueTopic("after"), null, "1"),
                202);
    }

    /** Sends {@code body} until it is answered {@code status}: the backlog guard acts on its next refresh. */
    private void awaitIngestAnswer(String what, String body, int status) {
        await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(producer().post().uri("/v1/messages")
                        .contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange().expectBody()
                        .returnResult().getStatus().value()).as("the answer").isEqualTo(status));
    }

    static String item(UUID id, String topic, String key, String payload) {
        return "{" + (id == null ? "" : "\"id\":\"" + id + "\",") + "\"topic\":\"" + topic + "\","
                + (key == null ? "" : "\"key\":\"" + key + "\",") + "\"type\":\"T\",\"payload\":" + payload + "}";
    }
}
