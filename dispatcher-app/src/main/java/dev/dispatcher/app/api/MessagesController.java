package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.store.IngestResult;
import java.net.URI;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code /v1/messages} ingest (PRODUCER); the operator's view and mutations of single messages are
 * {@link MessageOperatorController}'s. Roles are enforced by {@link ApiSecurityConfiguration}; an API token's
 * topics by its {@link TopicGrant}, on every message before anything is written.
 */
@RestController
final class MessagesController {

    private final IngestRequestParser parser;
    private final IngestWriter ingest;
    private final BacklogGuard backlog;
    private final IngestLimits limits;
    private final SingleIngest single;
    private final IngestFastPath fastPath;
    private final IngestBudget budget;

    MessagesController(IngestRequestParser parser, IngestWriter ingest, BacklogGuard backlog, IngestLimits limits,
            SingleIngest single, IngestFastPath fastPath, IngestBudget budget) {
        this.parser = parser;
        this.ingest = ingest;
        this.backlog = backlog;
        this.limits = limits;
        this.single = single;
        this.fastPath = fastPath;
        this.budget = budget;
    }

    // ---- ingest

    /** The stored row an ingest answers with. */
    record EntryResponse(String id, String status, long seq, long version, String createdAt) {

        static EntryResponse of(IngestResult.StoredEntry entry) {
            return new EntryResponse(entry.id().toString(), entry.status(), entry.seq(), entry.version(),
                    entry.createdAt() == null ? null : entry.createdAt().toString());
        }
    }

    /** One item of a batch ingest's answer. */
    record BatchItemResponse(int index, String id, String result, String status) {
    }

    /** A batch ingest's answer: one item per message, in request order. */
    record BatchResponse(List<BatchItemResponse> results) {
    }

    @PostMapping(path = "/v1/messages", consumes = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<EntryResponse>> ingest(ServerWebExchange exchange, Principal caller) {
        // a request the fast path already read and settled is answered from its outcome (IngestFastPath)
        Mono<List<IngestResult>> settled = fastPath.takeSettled(exchange.getRequest().getId());
        return (settled != null ? settled
                : single.write(exchange.getRequest(), ingestTraceparent(exchange), TopicGrant.of(caller)))
                .map(results -> switch (results.get(0)) {
                    case IngestResult.Accepted accepted -> ResponseEntity.status(HttpStatus.ACCEPTED)
                            .location(URI.create("/v1/messages/" + accepted.entry().id()))
                            .body(EntryResponse.of(accepted.entry()));
                    case IngestResult.Duplicate duplicate -> ResponseEntity.ok()
                            .eTag(Long.toString(duplicate.entry().version()))
                            .body(EntryResponse.of(duplicate.entry()));
                    case IngestResult.Conflict conflict -> throw ApiProblem.conflict("id-conflict", "message "
                                    + conflict.entry().id() + " exists with different content; nothing was written")
                            .with("id", conflict.entry().id().toString())
                            .with("status", conflict.entry().status());
                });
    }

    @PostMapping(path = "/v1/messages/batch", consumes = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<BatchResponse>> ingestBatch(ServerWebExchange exchange, Principal caller) {
        String traceparent = ingestTraceparent(exchange);
        TopicGrant grant = TopicGrant.of(caller);
        // admitted before its body is read, as a single message is (SingleIngest)
        return budget.admit(exchange.getRequest(), limits.batchBodyBytes(), reservation -> RequestBodies.read(
                        exchange.getRequest(), limits.batchBodyBytes(), limits.batchBodyRule())
                .map(body -> grant.checkAll(parser.parseBatch(body)).stream()
                        .map(m -> m.withTraceparent(traceparent)).toList())
                .flatMap(messages -> backlog.check().then(ingest.write(messages, reservation))))
                .map(results -> {
                    List<BatchItemResponse> items = new ArrayList<>(results.size());
                    for (int i = 0; i < results.size(); i++) {
                        IngestResult result = results.get(i);
                        items.add(new BatchItemResponse(i, result.entry().id().toString(), switch (result) {
                            case IngestResult.Accepted a -> "accepted";
                            case IngestResult.Duplicate d -> "duplicate";
                            case IngestResult.Conflict c -> "conflict";
                        }, result.entry().status()));
                    }
                    return ResponseEntity.status(HttpStatus.ACCEPTED).body(new BatchResponse(items));
                });
    }

    /** The {@code traceparent} of this request's server span (Spring's HTTP observation), if it is traced. */
    private static String ingestTraceparent(ServerWebExchange exchange) {
        return ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                .map(MessageTracing::traceparentOf)
                .orElse(null);
    }
}
