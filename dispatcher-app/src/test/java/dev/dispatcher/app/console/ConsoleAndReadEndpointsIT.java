package dev.dispatcher.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.OpsTestSupport;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * Without a browser: the console's files are served to anyone with a strict Content-Security-Policy while every
 * figure stays behind the API's OPERATOR rule, the console's 401s carry no Basic challenge, and the read endpoints
 * the console added answer as docs/http-api.md says.
 */
class ConsoleAndReadEndpointsIT extends OpsTestSupport {

    @Test
    void theConsolesFilesAreServedWithoutCredentialsUnderAStrictContentSecurityPolicy() {
        http.get().uri("/console").exchange()
                .expectStatus().isPermanentRedirect()
                .expectHeader().valueEquals(HttpHeaders.LOCATION, "/console/");
        http.get().uri("/console/").exchange()
                .expectStatus().isOk()
                .expectHeader().contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader().value("Content-Security-Policy", csp -> assertThat(csp)
                        .contains("script-src 'self'").contains("frame-ancestors 'none'").doesNotContain("unsafe"))
                .expectBody(String.class).value(html -> assertThat(html).contains("js/app.js"));
        http.get().uri("/console/js/api.js").exchange().expectStatus().isOk();
        http.post().uri("/console/").exchange().expectStatus().is4xxClientError();
    }

    @Test
    void theApiStillNeedsARoleAndAnswersTheConsoleWithoutABasicChallenge() {
        http.get().uri("/v1/stats").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueMatches(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=.*");
        http.get().uri("/v1/stats").header("X-Requested-With", "XMLHttpRequest").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"dispatcher\"");
        for (String path : new String[] {"/v1/rates", "/v1/inbox/consumers",
                "/v1/messages/" + UUID.randomUUID() + "/audit", "/v1/inbox/" + CONSUMER + "/dead-letters"}) {
            as(PRODUCER).get().uri(path).exchange().expectStatus().isForbidden();
        }
    }

    @Test
    void aMessagesAuditRowsAreReadNewestFirst() {
        // live but not visible for an hour, so the relay leaves it alone between the two mutations
        UUID id = UUID.randomUUID();
        execute("INSERT INTO outbox_message (id, topic, event_type, payload, visible_after)"
                + " VALUES (?, ?, 'Audited', convert_to('1', 'UTF8'), now() + interval '1 hour')", id, PLAIN_TOPIC);
        as(OPERATOR).post().uri("/v1/messages/" + id + "/dead-letter?reason=bad data").header("If-Match", "\"0\"")
                .contentType(MediaType.APPLICATION_JSON).exchange().expectStatus().isOk();
        as(OTHER_OPERATOR).post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"1\"")
                .contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk();
        as(OPERATOR).get().uri("/v1/messages/" + id + "/audit").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.items.length()").isEqualTo(2)
                .jsonPath("$.items[0].actor").isEqualTo(OTHER_OPERATOR)
                .jsonPath("$.items[0].action").isEqualTo("replay")
                .jsonPath("$.items[0].before.status").isEqualTo("DEAD_LETTERED")
                .jsonPath("$.items[0].after.status").isEqualTo("PENDING")
                .jsonPath("$.items[1].actor").isEqualTo(OPERATOR)
                .jsonPath("$.items[1].action").isEqualTo("dead_letter")
                .jsonPath("$.items[1].detail.reason").isEqualTo("bad data")
                .jsonPath("$.items[1].before.status").isEqualTo("PENDING");
    }

    @Test
    void ratesNameTheInstanceItsBreakerAndItsTotals() {
        as(OPERATOR).get().uri("/v1/rates").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.instance").isEqualTo("ops-it")
                .jsonPath("$.intervalSeconds").isEqualTo(5)
                .jsonPath("$.breaker").isEqualTo("CLOSED")
                .jsonPath("$.publishedTotal").isNumber()
                .jsonPath("$.samples").isArray();
    }

    @Test
    void inboxConsumersShowTheirBacklogAndDeadLettersPagedByCursor() {
        for (int i = 0; i < 3; i++) {
            execute("INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,"
                    + " source_offset, payload, status, last_error, dead_lettered_at) VALUES (?, ?, ?, 0, ?,"
                    + " convert_to('x', 'UTF8'), 'DEAD_LETTERED', 'seeded failure', now())",
                    CONSUMER, "seeded-" + UUID.randomUUID(), TRACED_TOPIC, 1_000_000L + i);
        }
        as(OPERATOR).get().uri("/v1/inbox/consumers").exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.items[0].name").isEqualTo(CONSUMER)
                .jsonPath("$.items[0].topics[0]").isEqualTo(TRACED_TOPIC)
                .jsonPath("$.items[0].handler").isEqualTo("webhook")
                .jsonPath("$.items[0].deadLettered").value(n -> assertThat(((Number) n).longValue())
                        .isGreaterThanOrEqualTo(3))
                .jsonPath("$.items[0].backlogTotal").isNumber()
                .jsonPath("$.items[0].ordering").isEqualTo("none")
                .jsonPath("$.items[0].deadLetterTopic").doesNotExist()
                .jsonPath("$.items[1].name").isEqualTo(KEYED_CONSUMER)
                .jsonPath("$.items[1].ordering").isEqualTo("per-key")
                .jsonPath("$.items[1].deadLetterTopic").isEqualTo("{topic}.DLT");
        Map<?, ?> first = as(OPERATOR).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters?limit=2")
                .exchange().expectStatus().isOk()
                .expectBody(Map.class).returnResult().getResponseBody();
        assertThat((List<?>) first.get("items")).hasSize(2);
        String cursor = (String) first.get("nextCursor");
        assertThat(cursor).isNotNull();
        as(OPERATOR).get().uri("/v1/inbox/" + CONSUMER + "/dead-letters?limit=1000&cursor=" + cursor)
                .exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.items[0].lastError").exists();
        as(OPERATOR).get().uri("/v1/inbox/nobody/dead-letters").exchange().expectStatus().isNotFound();
    }
}
