package dev.dispatcher.app.api;

import dev.dispatcher.app.outbox.PauseSwitch;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.OperatorStore;
import java.security.Principal;
import java.util.Set;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Operator endpoints beyond single messages: stats, bulk replay of dead letters, the cluster-wide relay switch. */
@RestController
final class OperatorController {

    static final int DEFAULT_BULK_LIMIT = 100;
    static final int MAX_BULK_LIMIT = 1000;
    private static final long MAX_FILTER_BODY = 16 * 1024;
    private static final Set<String> FILTER_FIELDS = Set.of("topic", "key", "errorContains", "limit");

    private final OperatorStore operator;
    private final ControlStore control;
    private final PauseSwitch pauseSwitch;

    OperatorController(OperatorStore operator, ControlStore control, PauseSwitch pauseSwitch) {
        this.operator = operator;
        this.control = control;
        this.pauseSwitch = pauseSwitch;
    }

    @GetMapping("/v1/stats")
    Mono<OperatorResponses.Stats> stats() {
        return operator.stats(control.relayPaused()).map(OperatorResponses.Stats::of);
    }

    /**
     * Replays dead letters matching an optional JSON filter {@code {topic?, key?, errorContains?, limit?}}; an
     * empty body replays the oldest {@value #DEFAULT_BULK_LIMIT}. Bounded: at most {@value #MAX_BULK_LIMIT} per call.
     */
    @PostMapping("/v1/dead-letters/replay")
    Mono<OperatorResponses.BulkReplay> replayDeadLetters(ServerWebExchange exchange, Principal principal) {
        return RequestBodies.read(exchange.getRequest(), MAX_FILTER_BODY, "filters are small")
                .flatMap(body -> {
                    ObjectNode filter = filter(body, exchange);
                    String topic = text(filter, "topic", 249);
                    String key = text(filter, "key", IngestRequestParser.MAX_KEY_BYTES);
                    String errorContains = text(filter, "errorContains", 1000);
                    JsonNode limitNode = filter.get("limit");
                    int limit = DEFAULT_BULK_LIMIT;
                    if (limitNode != null && !limitNode.isNull()) {
                        if (!limitNode.isInt() || limitNode.asInt() < 1 || limitNode.asInt() > MAX_BULK_LIMIT) {
                            throw ApiProblem.invalid("limit", "limit must be an integer between 1 and "
                                    + MAX_BULK_LIMIT);
                        }
                        limit = limitNode.asInt();
                    }
                    return operator.replayDeadLetters(topic, key, errorContains, limit, principal.getName());
                })
                .map(ids -> new OperatorResponses.BulkReplay(ids.size(), ids.stream().map(Object::toString).toList()));
    }

    private static ObjectNode filter(byte[] body, ServerWebExchange exchange) {
        if (body.length == 0) {
            return IngestRequestParser.JSON.createObjectNode();
        }
        var contentType = exchange.getRequest().getHeaders().getContentType();
        if (contentType == null || !contentType.isCompatibleWith(org.springframework.http.MediaType.APPLICATION_JSON)) {
            throw new org.springframework.web.server.UnsupportedMediaTypeStatusException(contentType,
                    java.util.List.of(org.springframework.http.MediaType.APPLICATION_JSON));
        }
        JsonNode root = IngestRequestParser.tree(body);
        if (!(root instanceof ObjectNode object)) {
            throw ApiProblem.invalid("$", "the filter must be a JSON object");
        }
        for (String name : object.propertyNames()) {
            if (!FILTER_FIELDS.contains(name)) {
                throw ApiProblem.invalid(name, "unknown filter field; known fields are topic, key, errorContains, limit");
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

    @PostMapping("/v1/relay/pause")
    Mono<OperatorResponses.RelaySwitch> pause(Principal principal) {
        return setPaused(true, principal);
    }

    @PostMapping("/v1/relay/resume")
    Mono<OperatorResponses.RelaySwitch> resume(Principal principal) {
        return setPaused(false, principal);
    }

    private Mono<OperatorResponses.RelaySwitch> setPaused(boolean paused, Principal principal) {
        return control.setRelayPaused(paused, principal.getName())
                // this instance applies it at once; the others within their poll interval
                .flatMap(previous -> pauseSwitch.refresh().onErrorResume(e -> Mono.just(paused)).thenReturn(previous))
                .map(previous -> new OperatorResponses.RelaySwitch(paused, previous));
    }
}
