package dev.dispatcher.app.api;

import java.util.List;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of a bulk dead-letter replay, the outbox's ({@code POST /v1/dead-letters/replay}) and an inbox
 * consumer's ({@code POST /v1/inbox/{consumer}/dead-letters/replay}): an optional JSON object {@code {topic?, key?,
 * errorContains?, limit?}}. An empty body replays the oldest {@value #DEFAULT_LIMIT}; at most {@value #MAX_LIMIT}
 * per call. A body that is not JSON is {@code 415}, an unknown field or a bad value {@code 400} naming the field.
 *
 * @param topic the (source) topic, or null for any
 * @param key the key, or null for any
 * @param errorContains text the last error contains, or null for any
 * @param limit how many at most
 */
record ReplayFilter(String topic, String key, String errorContains, int limit) {

    /** The body as the OpenAPI document describes it. */
    static final String DOC = "optional, all fields optional: replays the oldest dead letters matching every field"
            + " given (limit 1 to 1000, default 100); an empty body replays the oldest 100";
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final int MAX_BODY = 16 * 1024;
    /** As ingest's limit of a message key. */
    private static final int MAX_KEY_CHARACTERS = 1024;
    private static final Set<String> FIELDS = Set.of("topic", "key", "errorContains", "limit");

    /** The filter of the exchange's body; errors are {@link ApiProblem}s (or 415). */
    static Mono<ReplayFilter> read(ServerWebExchange exchange) {
        return ApiJson.body(exchange.getRequest(), MAX_BODY, "filters are small")
                .map(body -> {
                    ObjectNode filter = object(body, exchange);
                    JsonNode limitNode = filter.get("limit");
                    int limit = DEFAULT_LIMIT;
                    if (limitNode != null && !limitNode.isNull()) {
                        if (!limitNode.isInt() || limitNode.asInt() < 1 || limitNode.asInt() > MAX_LIMIT) {
                            throw ApiProblem.invalid("limit", "limit must be an integer between 1 and " + MAX_LIMIT);
                        }
                        limit = limitNode.asInt();
                    }
                    return new ReplayFilter(text(filter, "topic", 249),
                            text(filter, "key", MAX_KEY_CHARACTERS), text(filter, "errorContains", 1000),
                            limit);
                });
    }

    private static ObjectNode object(byte[] body, ServerWebExchange exchange) {
        if (body.length == 0) {
            return ApiJson.JSON.createObjectNode();
        }
        MediaType contentType = exchange.getRequest().getHeaders().getContentType();
        if (contentType == null || !contentType.isCompatibleWith(MediaType.APPLICATION_JSON)) {
            throw new UnsupportedMediaTypeStatusException(contentType, List.of(MediaType.APPLICATION_JSON));
        }
        JsonNode root = ApiJson.tree(body);
        if (!(root instanceof ObjectNode object)) {
            throw ApiProblem.invalid("$", "the filter must be a JSON object");
        }
        for (String name : object.propertyNames()) {
            if (!FIELDS.contains(name)) {
                throw ApiProblem.invalid(name,
                        "unknown filter field; known fields are topic, key, errorContains, limit");
            }
        }
        return object;
    }

    private static String text(ObjectNode filter, String name, int max) {
        JsonNode node = filter.get(name);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isString() || node.asString().isEmpty() || node.asString().length() > max
                || node.asString().indexOf('\0') >= 0) {
            throw ApiProblem.invalid(name, name + " must be a string of 1 to " + max + " characters without NUL");
        }
        return node.asString();
    }
}
