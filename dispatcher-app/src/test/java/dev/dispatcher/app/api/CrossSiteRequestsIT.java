package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * What a page on another origin could make a browser send with its cached Basic credentials is refused: a form
 * post, a {@code text/plain} post or a bodiless post to a mutation answers {@code 415} and changes nothing (read
 * through a separate connection); only a declared JSON body, which a browser sends cross-site only after a CORS
 * preflight this service never grants, goes through. And browsers are never sent a Basic challenge, so they never
 * cache credentials in the first place.
 */
class CrossSiteRequestsIT extends ApiTestSupport {

    private static boolean relayPaused() {
        return count("SELECT count(*) FROM dispatcher_control WHERE name = 'relay_paused' AND enabled") == 1;
    }

    @Test
    void aFormOrTextPostWithValidCredentialsCannotPauseTheRelayButAJsonPostCan() {
        assertThat(relayPaused()).isFalse();
        long auditBefore = count("SELECT count(*) FROM dispatch_audit WHERE action = 'relay_pause'");

        operator().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .bodyValue("confirm=yes").exchange()
                .expectStatus().isEqualTo(415)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody().jsonPath("$.status").isEqualTo(415)
                .jsonPath("$.detail").value(d -> assertThat((String) d).contains("application/x-www-form-urlencoded",
                        "application/json"));
        operator().post().uri("/v1/relay/pause").contentType(MediaType.TEXT_PLAIN).bodyValue("{}").exchange()
                .expectStatus().isEqualTo(415);
        operator().post().uri("/v1/relay/pause").contentType(MediaType.MULTIPART_FORM_DATA)
                .bodyValue("--x--").exchange()
                .expectStatus().isEqualTo(415);
        operator().post().uri("/v1/relay/pause").exchange()
                .expectStatus().isEqualTo(415)
                .expectBody().jsonPath("$.detail").value(d -> assertThat((String) d).contains("is missing"));

        assertThat(relayPaused()).as("the relay still runs").isFalse();
        assertThat(count("SELECT count(*) FROM dispatch_audit WHERE action = 'relay_pause'")).isEqualTo(auditBefore);

        try {
            operator().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk();
            assertThat(relayPaused()).isTrue();
        } finally {
            operator().post().uri("/v1/relay/resume")
                    .header(HttpHeaders.CONTENT_TYPE, "application/json; charset=utf-8")
                    .exchange().expectStatus().isOk();
        }
        assertThat(relayPaused()).isFalse();
    }

    @Test
    void everyOtherMutationTakesOnlyJsonToo() {
        UUID id = seed("DEAD_LETTERED", uniqueTopic("csrf"), null, "broken");

        operator().post().uri("/v1/messages/" + id + "/replay").header("If-Match", "\"0\"")
                .contentType(MediaType.TEXT_PLAIN).exchange()
                .expectStatus().isEqualTo(415);
        operator().post().uri("/v1/dead-letters/replay").contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .bodyValue("limit=1000").exchange()
                .expectStatus().isEqualTo(415);
        producer().post().uri("/v1/messages").contentType(MediaType.TEXT_PLAIN)
                .bodyValue(IngestApiIT.item(UUID.randomUUID(), uniqueTopic("csrf"), null, "1")).exchange()
                .expectStatus().isEqualTo(415);

        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ? AND status = 'DEAD_LETTERED'", id))
                .as("not replayed").isEqualTo(1);
    }

    @Test
    void aRefusalForTheRoleStillComesFirst() {
        http.post().uri("/v1/relay/pause").contentType(MediaType.TEXT_PLAIN).exchange().expectStatus().isUnauthorized();
        producer().post().uri("/v1/relay/pause").contentType(MediaType.TEXT_PLAIN).exchange()
                .expectStatus().isForbidden();
    }

    @Test
    void browsersAreNeverSentABasicChallengeWhileApiClientsAre() {
        WebTestClient.ResponseSpec navigation = http.get().uri("/v1/stats")
                .header(HttpHeaders.ACCEPT, "text/html,application/xhtml+xml,*/*;q=0.8").exchange();
        navigation.expectStatus().isUnauthorized()
                .expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, SecurityProblems.BROWSER_WWW_AUTHENTICATE);
        http.get().uri("/v1/stats").header("Sec-Fetch-Mode", "no-cors").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, SecurityProblems.BROWSER_WWW_AUTHENTICATE);
        // a browser retrying with a wrong cached password gets no dialog either
        http.get().uri("/v1/stats").headers(h -> h.setBasicAuth("operator", "stale"))
                .header("Sec-Fetch-Mode", "navigate").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, SecurityProblems.BROWSER_WWW_AUTHENTICATE);

        http.get().uri("/v1/stats").header(HttpHeaders.ACCEPT, "*/*").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueEquals(HttpHeaders.WWW_AUTHENTICATE, SecurityProblems.WWW_AUTHENTICATE);
    }
}
