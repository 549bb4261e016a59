package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.CONCURRENCY_CONFLICT;
import static dev.dispatcher.app.api.ProblemType.ILLEGAL_TRANSITION;
import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.NOT_FOUND;
import static dev.dispatcher.app.api.ProblemType.PRECONDITION_REQUIRED;
import static dev.dispatcher.app.api.ProblemType.VERSION_MISMATCH;

import dev.dispatcher.app.store.OperatorMutation;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.store.OutboxOperatorRow;
import dev.dispatcher.domain.MessageStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The operator's view and mutations of single outbox messages (reads VIEWER or OPERATOR, mutations OPERATOR): read
 * with its {@code ETag}, list with a cursor, replay and dead-letter with {@code If-Match}. The store answers
 * mutations with a sealed {@link OperatorMutation}; this class maps each to the response or an RFC 9457 problem
 * carrying the current row.
 */
@RestController
final class MessageOperatorController {

    static final int DEFAULT_LIST_LIMIT = 100;
    static final int MAX_LIST_LIMIT = 1000;
    static final String LIMIT_DOC = "1 to " + MAX_LIST_LIMIT + ", default " + DEFAULT_LIST_LIMIT;
    static final String CURSOR_DOC = "the nextCursor of the previous page (opaque)";
    static final String IF_MATCH_DOC = "\"<version>\": the ETag of the row as last read; without it 428";
    private static final Pattern IF_MATCH = Pattern.compile("\\s*\"(\\d{1,18})\"\\s*");
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final PerSource<OperatorStore> operators;

    MessageOperatorController(PerSource<OperatorStore> operators) {
        this.operators = operators;
    }

    private OperatorStore operator(String source) {
        return SourceParameter.of(source, operators::get);
    }

    @Problems({INVALID_FIELD, NOT_FOUND})
    @Operation(operationId = "getMessage", summary = "Read one outbox message with its payload and ETag")
    @GetMapping("/v1/messages/{id}")
    Mono<ResponseEntity<MessageView>> get(@PathVariable String id,
            @Parameter(description = SourceParameter.QUERY_DOC) @RequestParam(defaultValue = SourceParameter.DEFAULT) String source) {
        UUID uuid = messageId(id);
        return operator(source).find(uuid)
                .switchIfEmpty(Mono.error(() -> ApiProblem.notFound("no outbox message with id " + uuid)))
                .map(entry -> ResponseEntity.ok().eTag(MessageView.etag(entry)).body(MessageView.of(entry, true)));
    }

    @Problems({INVALID_FIELD, NOT_FOUND})
    @Operation(operationId = "listMessages",
            summary = "List outbox messages by status, topic and key, paged in seq order")
    @GetMapping("/v1/messages")
    Mono<OperatorResponses.Page> list(@Parameter(schema = @Schema(allowableValues = {"PENDING", "RETRY_SCHEDULED",
                    "DELIVERED", "DEAD_LETTERED"})) @RequestParam(required = false) String status,
            @RequestParam(required = false) String topic, @RequestParam(required = false) String key,
            @Parameter(description = LIMIT_DOC) @RequestParam(required = false) String limit,
            @Parameter(description = CURSOR_DOC) @RequestParam(required = false) String cursor,
            @Parameter(description = SourceParameter.QUERY_DOC)
            @RequestParam(defaultValue = SourceParameter.DEFAULT) String source) {
        MessageStatus parsedStatus = status == null ? null : outboxStatus(status);
        int parsedLimit = limit == null ? DEFAULT_LIST_LIMIT : intParam("limit", limit, 1, MAX_LIST_LIMIT);
        long after = cursor == null ? 0 : decodeCursor(cursor);
        if (topic != null && topic.isEmpty() || key != null && key.isEmpty()) {
            throw ApiProblem.invalid(topic != null && topic.isEmpty() ? "topic" : "key", "filters must not be empty");
        }
        if (topic != null && topic.indexOf('\0') >= 0 || key != null && key.indexOf('\0') >= 0) {
            throw ApiProblem.invalid("topic", "filters must not contain NUL");
        }
        return operator(source).list(parsedStatus, topic, key, after, parsedLimit).map(page ->
                new OperatorResponses.Page(
                page.items().stream().map(e -> MessageView.of(e, false)).toList(),
                page.nextAfterSeq() == null ? null : encodeCursor(page.nextAfterSeq())));
    }

    @Problems({INVALID_FIELD, NOT_FOUND, PRECONDITION_REQUIRED, VERSION_MISMATCH, ILLEGAL_TRANSITION,
            CONCURRENCY_CONFLICT})
    @Operation(operationId = "replayMessage", summary = "Replay one outbox message: back to PENDING, attempts 0")
    @PostMapping("/v1/messages/{id}/replay")
    Mono<ResponseEntity<MessageView>> replay(@PathVariable String id,
            @Parameter(description = IF_MATCH_DOC) @RequestHeader(name = HttpHeaders.IF_MATCH, required = false)
            String ifMatch, @Parameter(description = SourceParameter.QUERY_DOC) @RequestParam(
                    defaultValue = SourceParameter.DEFAULT) String source, Principal principal) {
        UUID uuid = messageId(id);
        long version = expectedVersion(ifMatch);
        return operator(source).replay(uuid, version, principal.getName()).map(result -> respond(uuid, result));
    }

    @Problems({INVALID_FIELD, NOT_FOUND, PRECONDITION_REQUIRED, VERSION_MISMATCH, ILLEGAL_TRANSITION,
            CONCURRENCY_CONFLICT})
    @Operation(operationId = "deadLetterMessage", summary = "Dead-letter one live outbox message, revoking its lease")
    @PostMapping("/v1/messages/{id}/dead-letter")
    Mono<ResponseEntity<MessageView>> deadLetter(@PathVariable String id,
            @Parameter(description = IF_MATCH_DOC) @RequestHeader(name = HttpHeaders.IF_MATCH, required = false)
            String ifMatch, @RequestParam(required = false) String reason,
            @Parameter(description = SourceParameter.QUERY_DOC) @RequestParam(
                    defaultValue = SourceParameter.DEFAULT) String source, Principal principal) {
        UUID uuid = messageId(id);
        long version = expectedVersion(ifMatch);
        if (reason != null && (reason.isBlank() || reason.length() > 1000 || reason.indexOf('\0') >= 0)) {
            throw ApiProblem.invalid("reason", "reason must be 1 to 1000 characters without NUL");
        }
        String why = reason != null ? reason : "dead-lettered by operator " + principal.getName();
        return operator(source).deadLetter(uuid, version, principal.getName(), why)
                .map(result -> respond(uuid, result));
    }

    /** The response of a mutation, or the problem that says why it was not made. */
    static ResponseEntity<MessageView> respond(UUID id, OperatorMutation<OutboxOperatorRow> result) {
        return MutationResults.respond(result, "message " + id, "no outbox message with id " + id,
                entry -> MessageView.of(entry, false), OutboxOperatorRow::version);
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
