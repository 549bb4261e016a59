package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * VIEWER reads and scrapes but changes nothing; OPERATOR reads and changes; PRODUCER ingests, within its token's
 * topics; health details are for OPERATOR only. Refusals are problem details; what was refused wrote nothing (read
 * through a separate connection).
 */
class RolesIT extends ApiTestSupport {

    @Autowired
    IngestFastPath fastPath;

    @Test
    void aViewerReadsAndScrapesButCannotPauseReplayOrIngest() {
        UUID dead = seed("DEAD_LETTERED", uniqueTopic("roles"), null, "broken");
        for (WebTestClient viewer : new WebTestClient[] {viewer(), bearer(VIEWER_TOKEN), bearer(jwt("grafana",
                "dispatcher:view"))}) {
            viewer.get().uri("/v1/stats").exchange().expectStatus().isOk();
            viewer.get().uri("/v1/messages/" + dead).exchange().expectStatus().isOk();
            viewer.get().uri("/v1/messages?status=DEAD_LETTERED&limit=1").exchange().expectStatus().isOk();
            viewer.get().uri("/v1/rates").exchange().expectStatus().isOk();
            viewer.get().uri("/actuator/prometheus").exchange().expectStatus().isOk();

            viewer.post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isForbidden()
                    .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody().jsonPath("$.detail").value(d -> assertThat((String) d).contains("OPERATOR"));
            viewer.post().uri("/v1/messages/" + dead + "/replay").header("If-Match", "\"0\"")
                    .contentType(MediaType.APPLICATION_JSON).exchange().expectStatus().isForbidden();
            viewer.post().uri("/v1/dead-letters/replay").contentType(MediaType.APPLICATION_JSON).bodyValue("{}")
                    .exchange().expectStatus().isForbidden();
            viewer.post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(IngestApiIT.item(null, uniqueTopic("roles"), null, "1")).exchange()
                    .expectStatus().isForbidden();
        }
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'DEAD_LETTERED'", dead))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM dispatcher_control WHERE name = 'relay_paused' AND enabled")).isZero();
        assertThat(count("SELECT count(*) FROM outbox_message WHERE topic LIKE 'roles.%' AND event_type = 'T'"))
                .isZero();
    }

    @Test
    void aProducerCannotReadOrScrape() {
        producer().get().uri("/v1/messages").exchange().expectStatus().isForbidden();
        producer().get().uri("/actuator/prometheus").exchange().expectStatus().isForbidden();
        bearer(ORDERS_TOKEN).get().uri("/v1/stats").exchange().expectStatus().isForbidden();
    }

    @Test
    void meSaysWhoTheCallerIsAndWhatItMayDo() {
        viewer().get().uri("/v1/me").exchange().expectStatus().isOk()
                .expectBody().json("{\"name\":\"viewer\",\"roles\":[\"VIEWER\"],\"topics\":[]}");
        bearer(ORDERS_TOKEN).get().uri("/v1/me").exchange().expectStatus().isOk()
                .expectBody().json("{\"name\":\"orders-service\",\"roles\":[\"PRODUCER\"],\"topics\":[\"orders.*\"]}");
        bearer(jwt("alice", "dispatcher:operate dispatcher:produce")).get().uri("/v1/me").exchange()
                .expectBody().json("{\"name\":\"alice\",\"roles\":[\"OPERATOR\",\"PRODUCER\"]}");
        http.get().uri("/v1/me").exchange().expectStatus().isUnauthorized();
    }

    @Test
    void aTokenWritesOnlyTheTopicsItsPatternsAllowOnEitherPath() {
        String allowed = "orders." + UUID.randomUUID().toString().substring(0, 8);
        String forbidden = "payments." + UUID.randomUUID().toString().substring(0, 8);
        long answered = fastPath.answered();

        bearer(ORDERS_TOKEN).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(IngestApiIT.item(null, allowed, null, "1")).exchange()
                .expectStatus().isAccepted();
        assertThat(fastPath.answered()).as("the single-message fast path took it").isEqualTo(answered + 1);

        bearer(ORDERS_TOKEN).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(IngestApiIT.item(null, forbidden, null, "1")).exchange()
                .expectStatus().isForbidden()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.field").isEqualTo("topic")
                .jsonPath("$.topic").isEqualTo(forbidden)
                .jsonPath("$.detail").value(d -> assertThat((String) d).contains(forbidden, ORDERS_PATTERN));
        bearer(ORDERS_TOKEN).post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + IngestApiIT.item(null, allowed, null, "2") + ","
                        + IngestApiIT.item(null, forbidden, null, "2") + "]").exchange()
                .expectStatus().isForbidden()
                .expectBody().jsonPath("$.field").isEqualTo("[1].topic");

        assertThat(count("SELECT count(*) FROM outbox_message WHERE topic = ?", allowed))
                .as("the batch is refused whole").isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_message WHERE topic = ?", forbidden)).isZero();

        producer().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(IngestApiIT.item(null, forbidden, null, "1")).exchange()
                .expectStatus().isAccepted();
        bearer(PRODUCER_TOKEN).post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + IngestApiIT.item(null, forbidden, null, "3") + "]").exchange()
                .expectStatus().isAccepted();
        assertThat(count("SELECT count(*) FROM outbox_message WHERE topic = ?", forbidden))
                .as("users and tokens without patterns write any topic").isEqualTo(2);
    }

    @Test
    void healthShowsEveryoneTheStatusAndOnlyAnOperatorTheDetails() {
        http.get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.kafka.status").isEqualTo("UP")
                .jsonPath("$.components.kafka.details").doesNotExist();
        viewer().get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.components.kafka.details").doesNotExist();
        operator().get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.components.kafka.details.clusterId").isNotEmpty();
    }
}
