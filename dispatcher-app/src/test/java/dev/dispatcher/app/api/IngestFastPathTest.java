package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.observe.MessageTracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import tools.jackson.databind.json.JsonMapper;

/** Which requests the fast path takes: headers only, so plain unit tests on built requests. */
class IngestFastPathTest {

    private static final String PRODUCER = "producer-secret";
    private static final String OPERATOR = "operator-secret";
    /** A configured PRODUCER token that has the shape of a JWT. */
    private static final String JWT_SHAPED = "aaa.bbb.ccc";

    private final ApiTokenAuthenticationManager tokens = new ApiTokenAuthenticationManager(List.of(
            token("loader", PRODUCER, "PRODUCER"), token("ops", OPERATOR, "OPERATOR"),
            token("shaped", JWT_SHAPED, "producer")));

    private static final String JSON = "application/json";
    private static final String BEARER = "Bearer " + PRODUCER;

    @Test
    void aProducerTokensJsonPostToTheExactPathIsTaken() {
        assertThat(takes(JSON, BEARER)).isTrue();
        assertThat(takes("application/json;charset=UTF-8", BEARER)).isTrue();
        assertThat(takes(JSON, "bearer " + PRODUCER)).as("any case").isTrue();
        for (String accept : List.of("application/json", "*/*", "application/*", "application/json, */*")) {
            assertThat(takes(JSON, BEARER, accept)).as(accept).isTrue();
        }
    }

    @Test
    void otherCredentialsAreLeftToTheFramework() {
        assertThat(takes(JSON, "Bearer " + OPERATOR)).as("no PRODUCER").isFalse();
        assertThat(takes(JSON, "Bearer unknown")).isFalse();
        assertThat(takes(JSON, "Basic cHJvZHVjZXI6cHc=")).isFalse();
        assertThat(takes(JSON, BEARER + " x")).isFalse();
        assertThat(takes(JSON, null)).isFalse();
        assertThat(fastPath(false).takes(MockServerHttpRequest.post("/v1/messages").header(HttpHeaders.CONTENT_TYPE,
                JSON).header(HttpHeaders.AUTHORIZATION, BEARER, BEARER).build())).as("two Authorization").isFalse();
        // a JWT decoder decides three-part tokens, even one that is also a configured API token
        assertThat(takes(JSON, "Bearer " + JWT_SHAPED)).isTrue();
        assertThat(fastPath(true).takes(request(JSON, "Bearer " + JWT_SHAPED))).isFalse();
    }

    @Test
    void otherRequestShapesAreLeftToTheFramework() {
        assertThat(fastPath(false).takes(MockServerHttpRequest.get("/v1/messages")
                .header(HttpHeaders.AUTHORIZATION, BEARER).build())).isFalse();
        for (String path : List.of("/v1/messages/", "/v1/messages/batch", "/v1/messages;x=1", "/V1/messages")) {
            assertThat(fastPath(false).takes(MockServerHttpRequest.post(path)
                    .header(HttpHeaders.AUTHORIZATION, BEARER).header(HttpHeaders.CONTENT_TYPE, JSON).build()))
                    .as(path).isFalse();
        }
        for (String type : List.of("text/plain", "application/json-patch+json", "application/*", "nonsense")) {
            assertThat(takes(type, BEARER)).as(type).isFalse();
        }
        assertThat(takes(null, BEARER)).isFalse();
        for (String accept : List.of("application/xml", "application/json;q=0.5", "application/problem+json",
                "text/html, application/json", "nonsense/")) {
            assertThat(takes(JSON, BEARER, accept)).as(accept).isFalse();
        }
    }

    @Test
    void turnedOffItHandsEveryRequestOn() {
        HttpHandler next = (request, response) -> null;
        IngestFastPath off = new IngestFastPath(false, tokens, false, null,
                new IngestResponder(JsonMapper.builder().build()), MessageTracing.off(), new SimpleMeterRegistry(),
                "http.server.requests");
        assertThat(off.enabled()).isFalse();
        assertThat(off.apply(next)).isSameAs(next);
        assertThat(fastPath(false).apply(next)).isNotSameAs(next);
    }

    @Test
    void jwtShapeDecidesTheBearerPath() {
        assertThat(ApiSecurityConfiguration.looksLikeJwt("a.b.c")).isTrue();
        assertThat(ApiSecurityConfiguration.looksLikeJwt("abc")).isFalse();
        assertThat(ApiSecurityConfiguration.looksLikeJwt("a..c")).isFalse();
        assertThat(ApiSecurityConfiguration.looksLikeJwt("a.b.c.d")).isFalse();
    }

    // ---- helpers

    private boolean takes(String contentType, String authorization, String... accept) {
        return fastPath(false).takes(request(contentType, authorization, accept));
    }

    /** A POST to the ingest path with these headers, each left out when null. */
    private static MockServerHttpRequest request(String contentType, String authorization, String... accept) {
        MockServerHttpRequest.BaseBuilder<?> builder = MockServerHttpRequest.post("/v1/messages");
        if (contentType != null) {
            builder.header(HttpHeaders.CONTENT_TYPE, contentType);
        }
        if (authorization != null) {
            builder.header(HttpHeaders.AUTHORIZATION, authorization);
        }
        if (accept.length > 0) {
            builder.header(HttpHeaders.ACCEPT, accept);
        }
        return builder.build();
    }

    private IngestFastPath fastPath(boolean jwtDecoder) {
        return new IngestFastPath(true, tokens, jwtDecoder, null, new IngestResponder(JsonMapper.builder().build()),
                MessageTracing.off(), new SimpleMeterRegistry(), "http.server.requests");
    }

    private static SecurityProperties.Token token(String name, String token, String role) {
        return new SecurityProperties.Token(name, HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(token)),
                List.of(role));
    }
}
