package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.security.config.observation.SecurityObservationSettings;

/** Who may call what: 401 for no or bad credentials, 403 for the wrong role, all as problem details. */
class ApiSecurityIT extends ApiTestSupport {

    private static String message() {
        return IngestApiIT.item(UUID.randomUUID(), uniqueTopic("sec"), null, "1");
    }

    @Test
    void anonymousCallersGet401ProblemWithTheAcceptedSchemes() {
        http.get().uri("/v1/stats").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().valueEquals("WWW-Authenticate", SecurityProblems.WWW_AUTHENTICATE)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody().jsonPath("$.status").isEqualTo(401);
        http.post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON).bodyValue(message()).exchange()
                .expectStatus().isUnauthorized();
    }

    @Test
    void aWrongPasswordIs401() {
        http.get().uri("/v1/stats").headers(h -> h.setBasicAuth("operator", "wrong")).exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON);
    }

    @Test
    void aProducerCallingAnOperatorEndpointIs403() {
        producer().get().uri("/v1/stats").exchange()
                .expectStatus().isForbidden()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody().jsonPath("$.detail").value(d -> org.assertj.core.api.Assertions
                        .assertThat((String) d).contains("producer", "OPERATOR"));
        producer().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange().expectStatus()
                .isForbidden();
        producer().get().uri("/v1/messages").exchange().expectStatus().isForbidden();
    }

    @Test
    void anOperatorCannotIngest() {
        operator().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON).bodyValue(message()).exchange()
                .expectStatus().isForbidden();
    }

    @Test
    void apiTokensAuthenticateByTheirHash() {
        bearer(PRODUCER_TOKEN).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(message()).exchange()
                .expectStatus().isAccepted();
        bearer(PRODUCER_TOKEN).get().uri("/v1/stats").exchange().expectStatus().isForbidden();
        bearer(OPERATOR_TOKEN).get().uri("/v1/stats").exchange().expectStatus().isOk();
        bearer("not-a-token").get().uri("/v1/stats").exchange()
                .expectStatus().isUnauthorized()
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON);
    }

    @Test
    void jwtScopesMapToRoles() {
        bearer(jwt("svc-orders", "dispatcher:produce")).post().uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON).bodyValue(message()).exchange()
                .expectStatus().isAccepted();
        bearer(jwt("svc-orders", "dispatcher:produce")).get().uri("/v1/stats").exchange()
                .expectStatus().isForbidden();
        bearer(jwt("alice", "openid dispatcher:operate")).get().uri("/v1/stats").exchange()
                .expectStatus().isOk();
    }

    @Test
    void aJwtSignedByAnotherKeyIs401() {
        String forged = jwt("mallory", "dispatcher:operate");
        String tampered = forged.substring(0, forged.lastIndexOf('.') + 1) + "AAAA" + forged.substring(forged.lastIndexOf('.') + 5);
        bearer(tampered).get().uri("/v1/stats").exchange().expectStatus().isUnauthorized();
    }

    @Test
    void healthIsPublicAndPrometheusNeedsAnOperator() {
        http.get().uri("/actuator/health/liveness").exchange().expectStatus().isOk();
        http.get().uri("/actuator/prometheus").exchange().expectStatus().isUnauthorized();
        producer().get().uri("/actuator/prometheus").exchange().expectStatus().isForbidden();
        operator().get().uri("/actuator/prometheus").exchange().expectStatus().isOk();
    }

    @Test
    void springSecurityObservesNothingSoItsFiltersAreNotWrappedPerRequest(
            @Autowired SecurityObservationSettings settings) {
        // disabled by name only, its observations were no-ops but every filter was still wrapped and scoped
        assertThat(settings.shouldObserveRequests()).isFalse();
        assertThat(settings.shouldObserveAuthentications()).isFalse();
        assertThat(settings.shouldObserveAuthorizations()).isFalse();
    }
}
