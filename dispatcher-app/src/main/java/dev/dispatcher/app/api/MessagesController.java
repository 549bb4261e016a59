package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.store.IngestResult;
import dev.dispatcher.domain.MessageStatus;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code /v1/messages}: ingest (PRODUCER) and the operator's view and mutations of single messages (OPERATOR).
 * Roles are enforced by {@link ApiSecurityConfiguration}; this class only names the caller in audit rows.
 */
@RestController
final class MessagesController {

    static final int DEFAULT_LIST_LIMIT = 100;
    static final int MAX_LIST_LIMIT = 1000;
    private static final Pattern IF_MATCH = Pattern.compile("\\s*\"(\\d{1,18})\"\\s*");
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final IngestRequestParser parser;
    private final IngestWriter ingest;
    private final BacklogGuard backlog;
    private final OperatorStore operator;
    private final IngestLimits limits;

    MessagesController(IngestRequestParser parser, IngestWriter ingest, BacklogGuard backlog, OperatorStore operator,
            IngestLimits limits) {
        this.parser = parser;
        this.ingest = ingest;
        this.backlog = backlog;
        this.operator = operator;
        this.limits = limits;
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
    Mono<ResponseEntity<EntryResponse>> ingest(ServerWebExchange exchange) {
        String traceparent = ingestTraceparent(exchange);
        return RequestBodies.read(exchange.getRequest(), limits.singleBodyBytes(), limits.singleBodyRule())
                .map(body -> parser.parseOne(body).withTraceparent(traceparent))
                .flatMap(message -> backlog.check().then(ingest.write(List.of(message))))
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
    Mono<ResponseEntity<BatchResponse>> ingestBatch(ServerWebExchange exchange) {
        String traceparent = ingestTraceparent(exchange);
        return RequestBodies.read(exchange.getRequest(), limits.batchBodyBytes(), limits.batchBodyRule())
                .map(body -> parser.parseBatch(body).stream().map(m -> m.withTraceparent(traceparent)).toList())
                .flatMap(messages -> backlog.check().then(ingest.write(messages)))
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

    // ---- operator

    @GetMapping("/v1/messages/{id}")
    Mono<ResponseEntity<Map<String, Object>>> get(@PathVariable String id) {
        UUID uuid = messageId(id);
        return operator.find(uuid)
                .switchIfEmpty(Mono.error(() -> ApiProblem.notFound("no outbox message with id " + uuid)))
                .map(view -> ResponseEntity.ok().eTag(view.etag()).body(view.toJson(true)));
    }

    @GetMapping("/v1/messages")
    Mono<Map<String, Object>> list(@RequestParam(required = false) String status,
            @RequestParam(required = false) String topic, @RequestParam(required = false) String key,
            @RequestParam(required = false) String limit, @RequestParam(required = false) String cursor) {
        MessageStatus parsedStatus = status == null ? null : outboxStatus(status);
        int parsedLimit = limit == null ? DEFAULT_LIST_LIMIT : intParam("limit", limit, 1, MAX_LIST_LIMIT);
        long after = cursor == null ? 0 : decodeCursor(cursor);
        if (topic != null && topic.isEmpty() || key != null && key.isEmpty()) {
            throw ApiProblem.invalid(topic != null && topic.isEmpty() ? "topic" : "key", "filters must not be empty");
        }
        if (topic != null && topic.indexOf('\0') >= 0 || key != null && key.indexOf('\0') >= 0) {
            throw ApiProblem.invalid("topic", "filters must not contain NUL");
        }
        return operator.list(parsedStatus, topic, key, after, parsedLimit).map(page -> {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("items", page.items().stream().map(v -> v.toJson(false)).toList());
            json.put("nextCursor", page.nextAfterSeq() == null ? null : encodeCursor(page.nextAfterSeq()));
            return json;
        });
    }

    @PostMapping("/v1/messages/{id}/replay")
    Mono<ResponseEntity<Map<String, Object>>> replay(@PathVariable String id,
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch, Principal principal) {
        UUID uuid = messageId(id);
        long version = expectedVersion(ifMatch);
        return operator.replay(uuid, version, principal.getName())
                .map(view -> ResponseEntity.ok().eTag(view.etag()).body(view.toJson(false)));
    }

    @PostMapping("/v1/messages/{id}/dead-letter")
    Mono<ResponseEntity<Map<String, Object>>> deadLetter(@PathVariable String id,
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch,
            @RequestParam(required = false) String reason, Principal principal) {
        UUID uuid = messageId(id);
        long version = expectedVersion(ifMatch);
        if (reason != null && (reason.isBlank() || reason.length() > 1000 || reason.indexOf('\0') >= 0)) {
            throw ApiProblem.invalid("reason", "reason must be 1 to 1000 characters without NUL");
        }
        String why = reason != null ? reason : "dead-lettered by operator " + principal.getName();
        return operator.deadLetter(uuid, version, principal.getName(), why)
                .map(view -> ResponseEntity.ok().eTag(view.etag()).body(view.toJson(false)));
    }

    // ---- parameters

    static UUID messageId(String id) {
        if (!UUID_TEXT.matcher(id).matches()) {
            throw ApiProblem.invalid("id", "the message id in the path must be a UUID");
        }
        return UUID.fromString(id);
    }

    static long expectedVersion(String ifMatch) {
        if (ifMatch == null) {
            throw ApiProblem.preconditionRequired("this mutation needs If-Match: \"<version>\" with the ETag of the"
                    + " message as last read (GET /v1/messages/{id})");
        }
        Matcher matcher = IF_MATCH.matcher(ifMatch);
        if (!matcher.matches()) {
            throw ApiProblem.invalid("If-Match", "If-Match must be one strong entity tag \"<version>\", such as"
                    + " \"3\"");
        }
        return Long.parseLong(matcher.group(1));
    }

    static MessageStatus outboxStatus(String status) {
        return switch (status) {
            case "PENDING" -> MessageStatus.PENDING;
            case "RETRY_SCHEDULED" -> MessageStatus.RETRY_SCHEDULED;
            case "DELIVERED" -> MessageStatus.DELIVERED;
            case "DEAD_LETTERED" -> MessageStatus.DEAD_LETTERED;
            default -> throw ApiProblem.invalid("status",
                    "status must be one of PENDING, RETRY_SCHEDULED, DELIVERED, DEAD_LETTERED");
        };
    }

    static int intParam(String name, String value, int min, int max) {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiProblem.invalid(name, name + " must be an integer between " + min + " and " + max);
    }

    static String encodeCursor(long afterSeq) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(("seq:" + afterSeq)
                .getBytes(StandardCharsets.US_ASCII));
    }

    static long decodeCursor(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
            if (text.matches("seq:\\d{1,18}")) {
                return Long.parseLong(text.substring(4));
            }
        } catch (IllegalArgumentException e) {
            // reported below
        }
        throw ApiProblem.invalid("cursor", "cursor must be a nextCursor value returned by this endpoint");
    }
}
