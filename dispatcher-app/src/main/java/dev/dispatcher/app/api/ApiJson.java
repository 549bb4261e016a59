package dev.dispatcher.app.api;

import dev.dispatcher.app.ingest.RequestBodies;

import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API's own JSON: operator request bodies read strictly (trailing tokens and duplicate keys refused, as ingest
 * refuses them), stored headers and payloads read for views, problem bodies written. Ingest bodies are the ingest
 * package's to read.
 */
final class ApiJson {

    static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private ApiJson() {
    }

    /** A small body, whole; {@code 413} when it is larger than {@code limit} bytes ({@code rule} says why). */
    static Mono<byte[]> body(ServerHttpRequest request, int limit, String rule) {
        long declared = request.getHeaders().getContentLength();
        if (declared > limit) {
            return Mono.error(ApiProblem.tooLarge("$", "the request body (" + declared + " bytes) is larger than "
                    + limit + " bytes (" + rule + ")"));
        }
        return RequestBodies.join(request.getBody(), limit)
                .onErrorMap(DataBufferLimitException.class, e -> ApiProblem.tooLarge("$", "the request body is"
                        + " larger than " + limit + " bytes (" + rule + ")"));
    }

    /** One JSON value; {@code 400} ({@code malformed-json}) when the body is empty or not one JSON value. */
    static JsonNode tree(byte[] body) {
        if (body.length == 0) {
            throw ApiProblem.malformed("the request body is empty; a JSON document is required");
        }
        try {
            JsonNode root = JSON.readTree(body);
            if (root == null || root.isMissingNode()) {
                throw ApiProblem.malformed("the request body holds no JSON value");
            }
            return root;
        } catch (JacksonException e) {
            throw ApiProblem.malformed("the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }
}
