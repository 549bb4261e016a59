package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

/** Operator reads and mutations: ETags, listing with a cursor, replay, manual dead letters, bulk replay, stats. */
class OperatorApiIT extends ApiTestSupport {

    @Test
    void aMessageIsReadWithItsVersionAsETag() {
        UUID id = seed("DEAD_LETTERED", uniqueTopic("get"), "k", "broker said no");
        operator().get().uri("/v1/messages/" + id).exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("ETag", "\"0\"")
                .expectBody()
                .jsonPath("$.id").isEqualTo(id.toString())
                .jsonPath("$.status").isEqualTo("DEAD_LETTERED")
                .jsonPath("$.payload.seeded").isEqualTo(true)
                .jsonPath("$.lastError").isEqualTo("broker said no");
    }

    @Test
    void anUnknownMessageIs404Problem() {
        operator().get().uri("/v1/messages/" + UUID.randomUUID()).exchange()
                .expectStatus().isNotFound()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON);
        operator().post().uri("/v1/messages/" + UUID.randomUUID() + "/replay").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isNotFound();
    }

    @Test
    void listingFiltersAndPagesWithAnOpaqueCursor() {
        String topic = uniqueTopic("list");
        List<UUID> ids = List.of(seed("DEAD_LETTERED", topic, "a", null), seed("DEAD_LETTERED", topic, "b", null),
                seed("DEAD_LETTERED", topic, "a", null), seed("DELIVERED", topic, "a", null));
        Map<?, ?> first = operator().get().uri("/v1/messages?status=DEAD_LETTERED&topic=" + topic + "&limit=2")
                .exchange().expectStatus().isOk().expectBody(Map.class).returnResult().getResponseBody();
        List<Object> firstIds = ((List<?>) first.get("items")).stream()
                .map(i -> (Object) ((Map<?, ?>) i).get("id")).toList();
        assertThat(firstIds).containsExactly(ids.get(0).toString(), ids.get(1).toString());
        assertThat(first.get("nextCursor")).isNotNull();

        operator().get().uri("/v1/messages?status=DEAD_LETTERED&topic=" + topic + "&limit=2&cursor="
                        + first.get("nextCursor"))
                .exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.items.length()").isEqualTo(1)
                .jsonPath("$.items[0].id").isEqualTo(ids.get(2).toString())
                .jsonPath("$.nextCursor").doesNotExist();

        operator().get().uri("/v1/messages?topic=" + topic + "&key=a").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.items.length()").isEqualTo(3);
    }

    @Test
    void replayMovesAFinishedMessageBackToPendingAndIsAudited() {
        UUID id = seed("DEAD_LETTERED", uniqueTopic("replay"), null, "poison");
        execute("UPDATE outbox_message SET version = 4, lease_token = gen_random_uuid(), lease_owner = 'w1' WHERE id = ?", id);

        operator().post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"4\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("ETag", "\"5\"")
                .expectBody()
                .jsonPath("$.status").isEqualTo("PENDING")
                .jsonPath("$.attempts").isEqualTo(0)
                .jsonPath("$.version").isEqualTo(5)
                .jsonPath("$.leaseOwner").doesNotExist();

        // The replayed row is claimable at once, and the test context's relay may already have leased or published
        // it, so the replay's own write is checked where it cannot move: its audit row, written in the same
        // transaction; the row itself keeps only what no relay writes back.
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND dead_lettered_at IS NULL"
                + " AND version >= 5", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND actor = 'operator'"
                + " AND action = 'replay' AND before_state->>'status' = 'DEAD_LETTERED'"
                + " AND after_state->>'status' = 'PENDING' AND (after_state->>'version')::int = 5"
                + " AND (after_state->>'attempts')::int = 0 AND after_state->>'lease_token' IS NULL"
                + " AND (after_state->>'visible_after')::timestamptz <= now()", id.toString()))
                .isEqualTo(1);
    }

    @Test
    void aStaleVersionIs409WithTheCurrentRowAndChangesNothing() {
        UUID id = seed("DELIVERED", uniqueTopic("stale"), null, null);
        operator().post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"7\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isEqualTo(409)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.current.status").isEqualTo("DELIVERED")
                .jsonPath("$.current.version").isEqualTo(0);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'DELIVERED'", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ?", id.toString())).isZero();
    }

    @Test
    void replayingALiveMessageIsAnIllegalTransition409() {
        UUID id = seed("PENDING", uniqueTopic("illegal"), null, null);
        operator().post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isEqualTo(409)
                .expectBody()
                .jsonPath("$.type").value(t -> assertThat((String) t).endsWith("illegal-transition"))
                .jsonPath("$.current.status").isEqualTo("PENDING");
    }

    @Test
    void aLiveMessageIsDeadLetteredByHandAndLosesItsLease() {
        UUID id = seed("RETRY_SCHEDULED", uniqueTopic("manual"), null, null);
        execute("UPDATE outbox_message SET lease_token = gen_random_uuid(), lease_owner = 'w1',"
                + " lease_until = now() + interval '1 minute' WHERE id = ?", id);
        operator().post().uri("/v1/messages/" + id + "/dead-letter?reason=bad data").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk()
                .expectHeader().valueEquals("ETag", "\"1\"")
                .expectBody().jsonPath("$.status").isEqualTo("DEAD_LETTERED").jsonPath("$.lastError").isEqualTo("bad data");
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND lease_token IS NULL"
                + " AND lease_until IS NULL AND dead_lettered_at IS NOT NULL", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id = ? AND action = 'dead_letter'"
                + " AND before_state->>'lease_owner' = 'w1'", id.toString())).isEqualTo(1);

        operator().post().uri("/v1/messages/" + id + "/dead-letter").header("If-Match", "\"1\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isEqualTo(409);
    }

    @Test
    void deadLettersAreReplayedInBulkByFilterBoundedAndAuditedEach() {
        String topic = uniqueTopic("bulk");
        UUID a = seed("DEAD_LETTERED", topic, "k", "timeout talking to schema registry");
        UUID b = seed("DEAD_LETTERED", topic, "k", "timeout talking to schema registry");
        UUID c = seed("DEAD_LETTERED", topic, "k", "record too large");
        seed("DEAD_LETTERED", uniqueTopic("other"), "k", "timeout");

        operator().post().uri("/v1/dead-letters/replay").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + topic + "\",\"errorContains\":\"timeout\",\"limit\":1}")
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.replayed").isEqualTo(1).jsonPath("$.ids[0]").isEqualTo(a.toString());
        operator().post().uri("/v1/dead-letters/replay").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"" + topic + "\",\"errorContains\":\"timeout\"}")
                .exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.replayed").isEqualTo(1).jsonPath("$.ids[0]").isEqualTo(b.toString());

        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'DEAD_LETTERED'", c)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE message_id IN (?, ?) AND action = 'replay'"
                + " AND detail->>'bulk' = 'true' AND actor = 'operator'", a.toString(), b.toString())).isEqualTo(2);
    }

    @Test
    void statsShowBacklogDeadLettersAndThePauseSwitch() {
        seed("DEAD_LETTERED", uniqueTopic("stats"), null, null);
        operator().get().uri("/v1/stats").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.backlog.PENDING").isNumber()
                .jsonPath("$.backlog.RETRY_SCHEDULED").isNumber()
                .jsonPath("$.deadLettered").value(n -> assertThat(((Number) n).longValue()).isPositive())
                .jsonPath("$.oldestLiveAgeMs").isNumber()
                .jsonPath("$.relayPaused").isBoolean();
    }

    @Test
    void pauseAndResumeAreClusterWideAndAudited() {
        try {
            operator().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(true);
            assertThat(count("SELECT count(*) FROM dispatcher_control WHERE name = 'relay_paused' AND enabled"
                    + " AND updated_by = 'operator'")).isEqualTo(1);
            operator().get().uri("/v1/stats").exchange().expectBody().jsonPath("$.relayPaused").isEqualTo(true);
        } finally {
            operator().post().uri("/v1/relay/resume").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(false).jsonPath("$.wasPaused").isEqualTo(true);
        }
        assertThat(count("SELECT count(*) FROM dispatcher_control WHERE name = 'relay_paused' AND NOT enabled"))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE action = 'relay_pause'"
                + " AND after_state->>'relay_paused' = 'true'")).isPositive();
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE action = 'relay_resume'"
                + " AND before_state->>'relay_paused' = 'true'")).isPositive();
    }
}
