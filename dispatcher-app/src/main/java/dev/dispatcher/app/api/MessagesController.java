package dev.dispatcher.app.api;

import dev.dispatcher.app.ingest.Ingest;
import dev.dispatcher.app.ingest.IngestResult;
import dev.dispatcher.app.observe.MessageTracing;
import java.security.Principal;
import java.util.function.Function;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code /v1/messages} ingest (PRODUCER) the framework's way; the operator's view and mutations of single messages
 * are {@link MessageOperatorController}'s. Roles are enforced by {@link ApiSecurityConfiguration}; an API token's
 * topics by its grant ({@link ApiTokenAuthenticationManager#grantOf}), on every message before anything is written.
 * The request is {@link Ingest}'s and the answer {@link IngestResponder}'s, as on the fast path ({@link IngestFastPath}).
 * Both take JSON and answer JSON: any other {@code Accept} is refused ({@code 406}) before the body is read.
 */
@RestController
final class MessagesController {

    private final Ingest ingest;
    private final IngestResponder responder;

    MessagesController(Ingest ingest, IngestResponder responder) {
        this.ingest = ingest;
        this.responder = responder;
    }

    @PostMapping(path = "/v1/messages", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingest(ServerWebExchange exchange, Principal caller) {
        return answer(exchange, request -> ingest.one(request.getBody(), request.getHeaders().getContentLength(),
                ApiTokenAuthenticationManager.grantOf(caller), ingestTraceparent(exchange)));
    }

    @PostMapping(path = "/v1/messages/batch", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingestBatch(ServerWebExchange exchange, Principal caller) {
        return answer(exchange, request -> ingest.batch(request.getBody(), request.getHeaders().getContentLength(),
                ApiTokenAuthenticationManager.grantOf(caller), ingestTraceparent(exchange)));
    }

    private Mono<Void> answer(ServerWebExchange exchange, Function<ServerHttpRequest, Mono<IngestResult>> ingest) {
        ServerHttpRequest request = exchange.getRequest();
        return responder.answer(request, exchange.getResponse(), ingest.apply(request));
    }

    /** The {@code traceparent} of this request's server span (Spring's HTTP observation), if it is traced. */
    private static String ingestTraceparent(ServerWebExchange exchange) {
        return ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                .map(MessageTracing::traceparentOf)
                .orElse(null);
    }
}
