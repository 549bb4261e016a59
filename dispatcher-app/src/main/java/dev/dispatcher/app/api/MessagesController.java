package dev.dispatcher.app.api;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code /v1/messages} ingest (PRODUCER); the operator's view and mutations of single messages are
 * {@link MessageOperatorController}'s. Roles are enforced by {@link ApiSecurityConfiguration}.
 */
@RestController
final class MessagesController {

    private final IngestRequestParser parser;
    private final IngestStore ingest;
    private final BacklogGuard backlog;
    private final IngestLimits limits;

    MessagesController(IngestRequestParser parser, IngestStore ingest, BacklogGuard backlog, IngestLimits limits) {
        this.parser = parser;
        this.ingest = ingest;
        this.backlog = backlog;
        this.limits = limits;
    }

    // ---- ingest

    @PostMapping(path = "/v1/messages", consumes = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<Map<String, Object>>> ingest(ServerWebExchange exchange) {
        return RequestBodies.read(exchange.getRequest(), limits.singleBodyBytes(), limits.singleBodyRule())
                .map(parser::parseOne)
                .flatMap(message -> backlog.check().then(ingest.writeOne(message)))
                .map(result -> switch (result) {
                    case IngestResult.Accepted accepted -> ResponseEntity.status(HttpStatus.ACCEPTED)
                            .location(URI.create("/v1/messages/" + accepted.entry().id()))
                            .body(entryJson(accepted.entry()));
                    case IngestResult.Duplicate duplicate -> ResponseEntity.ok()
                            .eTag(Long.toString(duplicate.entry().version()))
                            .body(entryJson(duplicate.entry()));
                    case IngestResult.Conflict conflict -> throw ApiProblem.conflict("id-conflict", "message "
                                    + conflict.entry().id() + " exists with different content; nothing was written")
                            .with("id", conflict.entry().id().toString())
                            .with("status", conflict.entry().status());
                });
    }

    @PostMapping(path = "/v1/messages/batch", consumes = MediaType.APPLICATION_JSON_VALUE)
    Mono<ResponseEntity<Map<String, Object>>> ingestBatch(ServerWebExchange exchange) {
        return RequestBodies.read(exchange.getRequest(), limits.batchBodyBytes(), limits.batchBodyRule())
                .map(parser::parseBatch)
                .flatMap(messages -> backlog.check().then(ingest.writeBatch(messages)))
                .map(results -> {
                    List<Map<String, Object>> items = new ArrayList<>(results.size());
                    for (int i = 0; i < results.size(); i++) {
                        IngestResult result = results.get(i);
                        Map<String, Object> item = new LinkedHashMap<>();
                        item.put("index", i);
                        item.put("id", result.entry().id().toString());
                        item.put("result", switch (result) {
                            case IngestResult.Accepted a -> "accepted";
                            case IngestResult.Duplicate d -> "duplicate";
                            case IngestResult.Conflict c -> "conflict";
                        });
                        item.put("status", result.entry().status());
                        items.add(item);
                    }
                    return ResponseEntity.status(HttpStatus.ACCEPTED).body(Map.of("results", items));
                });
    }

    private static Map<String, Object> entryJson(IngestResult.StoredEntry entry) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", entry.id().toString());
        json.put("status", entry.status());
        json.put("seq", entry.seq());
        json.put("version", entry.version());
        json.put("createdAt", entry.createdAt() == null ? null : entry.createdAt().toString());
        return json;
    }
}
