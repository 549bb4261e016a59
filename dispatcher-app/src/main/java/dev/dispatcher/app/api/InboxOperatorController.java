package dev.dispatcher.app.api;

import static dev.dispatcher.app.api.ProblemType.CONCURRENCY_CONFLICT;
import static dev.dispatcher.app.api.ProblemType.ILLEGAL_TRANSITION;
import static dev.dispatcher.app.api.ProblemType.INVALID_FIELD;
import static dev.dispatcher.app.api.ProblemType.MALFORMED_JSON;
import static dev.dispatcher.app.api.ProblemType.NOT_FOUND;
import static dev.dispatcher.app.api.ProblemType.PRECONDITION_REQUIRED;
import static dev.dispatcher.app.api.ProblemType.TOO_LARGE;
import static dev.dispatcher.app.api.ProblemType.VERSION_MISMATCH;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.store.InboxEntry;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.store.InboxOperatorStore;
import dev.dispatcher.domain.MessageId;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import java.security.Principal;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The operator's view and mutations of one inbox consumer's dead letters (OPERATOR), as the outbox's: a page of dead
 * letters on a cursor, replay of one message with {@code If-Match}, and bulk replay by filter, each mutation audited.
 * The consumer must be configured ({@code dispatcher.inbox.consumers[i].name}), else {@code 404}. Results of the
 * single replay are rendered by {@link MutationResults}, the same as the outbox's.
 */
@RestController
final class InboxOperatorController {

    private final PerSource<InboxOperatorStore> stores;
    private final DispatcherProperties properties;

    InboxOperatorController(PerSource<InboxOperatorStore> stores, DispatcherProperties properties) {
        this.stores = stores;
        this.properties = properties;
    }

    @Problems({INVALID_FIELD, NOT_FOUND})
    @Operation(operationId = "listInboxDeadLetters",
            summary = "List an inbox consumer's dead letters, paged in seq order")
    @GetMapping("/v1/inbox/{consumer}/dead-letters")
    Mono<OperatorReadsController.Page<InboxMessageView>> deadLetters(@PathVariable String consumer,
            @Parameter(description = MessageOperatorController.LIMIT_DOC) @RequestParam(required = false) String limit,
            @Parameter(description = MessageOperatorController.CURSOR_DOC) @RequestParam(required = false)
            String cursor) {
        InboxOperatorStore store = storeOf(consumer);
        int parsedLimit = limit == null ? MessageOperatorController.DEFAULT_LIST_LIMIT
                : MessageOperatorController.intParam("limit", limit, 1, MessageOperatorController.MAX_LIST_LIMIT);
        long after = cursor == null ? 0 : MessageOperatorController.decodeCursor(cursor);
        return store.deadLetters(consumer, after, parsedLimit).map(page -> new OperatorReadsController.Page<>(
                page.items().stream().map(InboxMessageView::of).toList(),
                page.nextAfterSeq() == null ? null : MessageOperatorController.encodeCursor(page.nextAfterSeq())));
    }

    @Problems({INVALID_FIELD, NOT_FOUND, PRECONDITION_REQUIRED, VERSION_MISMATCH, ILLEGAL_TRANSITION,
            CONCURRENCY_CONFLICT})
    @Operation(operationId = "replayInboxMessage",
            summary = "Replay one inbox dead letter: back to PENDING, attempts 0")
    @PostMapping("/v1/inbox/{consumer}/messages/{id}/replay")
    Mono<ResponseEntity<InboxMessageView>> replay(@PathVariable String consumer, @PathVariable String id,
            @Parameter(description = MessageOperatorController.IF_MATCH_DOC)
            @RequestHeader(name = HttpHeaders.IF_MATCH, required = false) String ifMatch, Principal principal) {
        InboxOperatorStore store = storeOf(consumer);
        if (id.indexOf('\0') >= 0 || id.isBlank() || id.length() > MessageId.MAX_LENGTH) {
            throw ApiProblem.invalid("id", "the message id in the path must be 1 to " + MessageId.MAX_LENGTH
                    + " characters, not blank, without NUL");
        }
        long version = MessageOperatorController.expectedVersion(ifMatch);
        return store.replay(consumer, id, version, principal.getName())
                .map(result -> MutationResults.respond(result, "inbox message " + id + " of " + consumer,
                        "no inbox message " + id + " of consumer " + consumer, InboxMessageView::of,
                        InboxEntry::version));
    }

    /**
     * Replays the consumer's dead letters matching an optional JSON filter ({@link ReplayFilter}: {@code topic} is
     * the source topic, {@code key} a text key); rows whose value was not stored are never replayed.
     */
    @RequestBody(description = ReplayFilter.DOC, content = @Content(schema = @Schema(
            implementation = ReplayFilter.class)))
    @Problems({INVALID_FIELD, MALFORMED_JSON, TOO_LARGE, NOT_FOUND})
    @Operation(operationId = "replayInboxDeadLetters",
            summary = "Replay an inbox consumer's dead letters matching a filter, oldest first")
    @PostMapping("/v1/inbox/{consumer}/dead-letters/replay")
    Mono<OperatorResponses.BulkReplay> replayDeadLetters(@PathVariable String consumer, ServerWebExchange exchange,
            Principal principal) {
        InboxOperatorStore store = storeOf(consumer);
        return ReplayFilter.read(exchange)
                .flatMap(f -> store.replayDeadLetters(consumer, f.topic(), f.key(), f.errorContains(), f.limit(),
                        principal.getName()))
                .map(ids -> new OperatorResponses.BulkReplay(ids.size(), ids));
    }

    /** The operator store of the source whose database holds {@code consumer}'s inbox; 404 if not configured. */
    private InboxOperatorStore storeOf(String consumer) {
        return properties.inbox().consumers().stream().filter(c -> c.name().equals(consumer)).findFirst()
                .map(c -> stores.get(c.source()))
                .orElseThrow(() -> ApiProblem.notFound("no inbox consumer named " + consumer + " is configured"));
    }
}
