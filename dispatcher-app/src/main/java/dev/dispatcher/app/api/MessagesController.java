package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.BACKLOG_FULL;
import static dev.dispatcher.app.api.ProblemType.BODY_TIMEOUT;
import static dev.dispatcher.app.api.ProblemType.ID_CONFLICT;
import static dev.dispatcher.app.api.ProblemType.INGEST_BUSY;
import static dev.dispatcher.app.api.ProblemType.INGEST_MEMORY_FULL;
import static dev.dispatcher.app.api.ProblemType.INGEST_QUEUE_FULL;
import static dev.dispatcher.app.api.ProblemType.INGEST_TIMEOUT;
import static dev.dispatcher.app.api.ProblemType.INGEST_WRITE_TIMEOUT;
import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.MALFORMED_JSON;
import static dev.dispatcher.app.api.ProblemType.NOT_FOUND;
import static dev.dispatcher.app.api.ProblemType.TOO_LARGE;
import static dev.dispatcher.app.api.ProblemType.TOO_MANY_INGEST_REQUESTS;
import static dev.dispatcher.app.api.ProblemType.TOPIC_FORBIDDEN;

import dev.dispatcher.app.ingest.Ingest;
import dev.dispatcher.app.ingest.IngestResult;
import dev.dispatcher.app.ingest.SourceIngests;
import dev.dispatcher.app.observe.MessageTracing;
import java.security.Principal;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.function.Function;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code /v1/messages} ingest (PRODUCER) the framework's way, into the default source, and {@code
 * /v1/sources/{source}/messages} into a named one (an unknown name answers 404 before the body is read); the
 * operator's view and mutations of single messages are {@link MessageOperatorController}'s. Roles are enforced by
 * {@link ApiSecurityConfiguration}; an API token's topics by its grant ({@link ApiTokenAuthenticationManager#grantOf}),
 * on every message before anything is written.
 * The request is {@link Ingest}'s and the answer {@link IngestResponder}'s, as on the fast path ({@link IngestFastPath}).
 * Both take JSON and answer JSON: any other {@code Accept} is refused ({@code 406}) before the body is read. The
 * bodies are read by ingest, so their schemas are given here for the OpenAPI document.
 */
@RestController
final class MessagesController {

    private final SourceIngests ingests;
    private final IngestResponder responder;

    MessagesController(SourceIngests ingests, IngestResponder responder) {
        this.ingests = ingests;
        this.responder = responder;
    }

    @Operation(summary = "Write one message to the outbox", description = "An API token holder's request may be"
            + " answered before the web framework (the single-message fast path, dispatcher.ingest.fast-path): same"
            + " checks, same answers.", requestBody = @RequestBody(required = true, content = @Content(
                    schema = @Schema(implementation = MessageRequest.class))))
    @ApiResponse(responseCode = "202", description = "written (Location: /v1/messages/{id})",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.EntryResponse.class)))
    @ApiResponse(responseCode = "200", description = "the same id with the same content: the stored message"
            + " (ETag: its version), nothing written", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.EntryResponse.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOPIC_FORBIDDEN, ID_CONFLICT, BODY_TIMEOUT, TOO_LARGE, BACKLOG_FULL,
            INGEST_BUSY, TOO_MANY_INGEST_REQUESTS, INGEST_MEMORY_FULL, INGEST_QUEUE_FULL, INGEST_TIMEOUT,
            INGEST_WRITE_TIMEOUT})
    @PostMapping(path = "/v1/messages", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingest(ServerWebExchange exchange, Principal caller) {
        return one(ingests.defaultSource(), exchange, caller);
    }

    @Operation(summary = "Write one message to the outbox of a source", description = "As POST /v1/messages, into"
            + " the outbox of the named source (dispatcher.sources; default: the database of spring.r2dbc.*).",
            requestBody = @RequestBody(required = true, content = @Content(
                    schema = @Schema(implementation = MessageRequest.class))))
    @ApiResponse(responseCode = "202", description = "written",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.EntryResponse.class)))
    @ApiResponse(responseCode = "200", description = "the same id with the same content: the stored message"
            + " (ETag: its version), nothing written", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.EntryResponse.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOPIC_FORBIDDEN, NOT_FOUND, ID_CONFLICT, BODY_TIMEOUT, TOO_LARGE, BACKLOG_FULL,
            INGEST_BUSY, TOO_MANY_INGEST_REQUESTS, INGEST_MEMORY_FULL, INGEST_QUEUE_FULL, INGEST_TIMEOUT,
            INGEST_WRITE_TIMEOUT})
    @PostMapping(path = "/v1/sources/{source}/messages", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingestInto(@Parameter(description = SourceParameter.PATH_DOC) @PathVariable String source,
            ServerWebExchange exchange, Principal caller) {
        return one(SourceParameter.of(source, ingests::of), exchange, caller);
    }

    private Mono<Void> one(Ingest ingest, ServerWebExchange exchange, Principal caller) {
        return answer(exchange, request -> ingest.one(request.getBody(), request.getHeaders().getContentLength(),
                IngestClientKey.of(caller, request), ApiTokenAuthenticationManager.grantOf(caller),
                ingestTraceparent(exchange)));
    }

    @Operation(summary = "Write a batch of messages to the outbox, all or nothing", requestBody = @RequestBody(
            required = true, content = @Content(array = @ArraySchema(schema = @Schema(
                    implementation = MessageRequest.class), minItems = 1, arraySchema = @Schema(
                            description = "at most dispatcher.ingest.max-batch-size messages (else 413)")))))
    @ApiResponse(responseCode = "202", description = "every item written or found, in one transaction; a result per"
            + " item in request order (accepted, duplicate: the same content, conflict: other content)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.BatchResponse.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOPIC_FORBIDDEN, ID_CONFLICT, BODY_TIMEOUT, TOO_LARGE, BACKLOG_FULL,
            INGEST_BUSY, TOO_MANY_INGEST_REQUESTS, INGEST_MEMORY_FULL, INGEST_QUEUE_FULL, INGEST_TIMEOUT,
            INGEST_WRITE_TIMEOUT})
    @PostMapping(path = "/v1/messages/batch", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingestBatch(ServerWebExchange exchange, Principal caller) {
        return batch(ingests.defaultSource(), exchange, caller);
    }

    @Operation(summary = "Write a batch of messages to the outbox of a source, all or nothing", description = "As"
            + " POST /v1/messages/batch, into the outbox of the named source.", requestBody = @RequestBody(
                    required = true, content = @Content(array = @ArraySchema(schema = @Schema(
                            implementation = MessageRequest.class), minItems = 1))))
    @ApiResponse(responseCode = "202", description = "every item written or found, in one transaction",
            content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
                    schema = @Schema(implementation = IngestResponder.BatchResponse.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOPIC_FORBIDDEN, NOT_FOUND, ID_CONFLICT, BODY_TIMEOUT, TOO_LARGE, BACKLOG_FULL,
            INGEST_BUSY, TOO_MANY_INGEST_REQUESTS, INGEST_MEMORY_FULL, INGEST_QUEUE_FULL, INGEST_TIMEOUT,
            INGEST_WRITE_TIMEOUT})
    @PostMapping(path = "/v1/sources/{source}/messages/batch", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = {MediaType.APPLICATION_JSON_VALUE, MediaType.APPLICATION_PROBLEM_JSON_VALUE})
    Mono<Void> ingestBatchInto(@Parameter(description = SourceParameter.PATH_DOC) @PathVariable String source,
            ServerWebExchange exchange, Principal caller) {
        return batch(SourceParameter.of(source, ingests::of), exchange, caller);
    }

    private Mono<Void> batch(Ingest ingest, ServerWebExchange exchange, Principal caller) {
        return answer(exchange, request -> ingest.batch(request.getBody(), request.getHeaders().getContentLength(),
                IngestClientKey.of(caller, request), ApiTokenAuthenticationManager.grantOf(caller),
                ingestTraceparent(exchange)));
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
