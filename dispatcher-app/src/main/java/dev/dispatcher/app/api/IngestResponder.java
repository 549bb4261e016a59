package dev.dispatcher.app.api;

import dev.dispatcher.app.ingest.IngestProblem;
import dev.dispatcher.app.ingest.IngestResult;
import dev.dispatcher.app.store.StoredEntry;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one place an ingest's outcome becomes an HTTP answer, whichever way the request came ({@link MessagesController}
 * or {@link IngestFastPath}): status, headers and JSON body of an {@link IngestResult}, and an RFC 9457 problem for an
 * {@link IngestProblem} or a failure ({@link ApiProblem#ofFailure}). It writes the answer itself, so both ways answer
 * byte for byte alike; the security headers are the caller's (Spring Security's filter, or the fast path).
 * Stateless and thread-safe.
 */
final class IngestResponder {

    /** The stored row an ingest answers with. */
    record EntryResponse(String id, String status, long seq, long version, String createdAt) {

        static EntryResponse of(StoredEntry entry) {
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

    private final JsonMapper json;

    IngestResponder(JsonMapper json) {
        this.json = json;
    }

    /**
     * Answers {@code request} on {@code response} with what {@code outcome} signals. A client that went away is not
     * answered: its error is passed on, and so is one that arrives once the answer is being written.
     */
    Mono<Void> answer(ServerHttpRequest request, ServerHttpResponse response, Mono<IngestResult> outcome) {
        return outcome.flatMap(result -> write(request, response, result))
                .onErrorResume(error -> !response.isCommitted()
                                && !DisconnectedClientHelper.isClientDisconnectedException(error),
                        error -> write(request, response, problemOf(error, request)));
    }

    private Mono<Void> write(ServerHttpRequest request, ServerHttpResponse response, IngestResult result) {
        return switch (result) {
            case IngestResult.Accepted accepted -> {
                response.getHeaders().setLocation(URI.create("/v1/messages/" + accepted.entry().id()));
                yield write(response, HttpStatus.ACCEPTED, MediaType.APPLICATION_JSON,
                        EntryResponse.of(accepted.entry()));
            }
            case IngestResult.Duplicate duplicate -> {
                response.getHeaders().setETag("\"" + duplicate.entry().version() + "\"");
                yield write(response, HttpStatus.OK, MediaType.APPLICATION_JSON, EntryResponse.of(duplicate.entry()));
            }
            case IngestResult.Conflict conflict -> write(request, response, ApiProblem.conflict(
                            ProblemType.ID_CONFLICT, "message " + conflict.entry().id()
                                    + " exists with different content; nothing was written")
                    .with("id", conflict.entry().id().toString())
                    .with("status", conflict.entry().status()));
            case IngestResult.Batch batch -> write(response, HttpStatus.ACCEPTED, MediaType.APPLICATION_JSON,
                    batchResponse(batch));
        };
    }

    private static BatchResponse batchResponse(IngestResult.Batch batch) {
        List<BatchItemResponse> items = new ArrayList<>(batch.items().size());
        for (int i = 0; i < batch.items().size(); i++) {
            IngestResult.Message item = batch.items().get(i);
            items.add(new BatchItemResponse(i, item.entry().id().toString(), switch (item) {
                case IngestResult.Accepted a -> "accepted";
                case IngestResult.Duplicate d -> "duplicate";
                case IngestResult.Conflict c -> "conflict";
            }, item.entry().status()));
        }
        return new BatchResponse(items);
    }

    private Mono<Void> write(ServerHttpRequest request, ServerHttpResponse response, ApiProblem problem) {
        response.getHeaders().addAll(problem.headers());
        return write(response, problem.status(), MediaType.APPLICATION_PROBLEM_JSON,
                problem.body(request.getPath().value()));
    }

    private Mono<Void> write(ServerHttpResponse response, HttpStatus status, MediaType contentType, Object body) {
        byte[] bytes = json.writeValueAsBytes(body);
        response.setStatusCode(status);
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(contentType);
        headers.setContentLength(bytes.length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
    }

    /** The problem an ingest's error is answered with. */
    static ApiProblem problemOf(Throwable error, ServerHttpRequest request) {
        if (!(error instanceof IngestProblem problem)) {
            return ApiProblem.ofFailure(error, request);
        }
        return switch (problem) {
            case IngestProblem.Invalid invalid -> ApiProblem.invalid(invalid.field(), invalid.getMessage());
            case IngestProblem.Malformed malformed -> ApiProblem.malformed(malformed.getMessage());
            case IngestProblem.BodyTimeout timeout -> ApiProblem.bodyTimeout(timeout.getMessage());
            case IngestProblem.TooLarge tooLarge -> ApiProblem.tooLarge(tooLarge.field(), tooLarge.getMessage());
            case IngestProblem.TopicForbidden forbidden -> ApiProblem.topicForbidden(forbidden.field(),
                    forbidden.getMessage()).with("topic", forbidden.topic());
            case IngestProblem.BacklogFull full -> ApiProblem.tooManyRequests(ProblemType.BACKLOG_FULL,
                    full.getMessage(), IngestProblem.BacklogFull.RETRY_AFTER_SECONDS).with("backlog", full.backlog());
            case IngestProblem.Overloaded overloaded -> overloaded(overloaded);
            case IngestProblem.RowRemoved removed -> ApiProblem.conflict(ProblemType.ID_CONFLICT, removed.getMessage())
                    .with("id", removed.id().toString());
        };
    }

    private static ApiProblem overloaded(IngestProblem.Overloaded overloaded) {
        ProblemType type = switch (overloaded.reason()) {
            case BUSY -> ProblemType.INGEST_BUSY;
            case CLIENT_BUSY -> ProblemType.TOO_MANY_INGEST_REQUESTS;
            case MEMORY_FULL -> ProblemType.INGEST_MEMORY_FULL;
            case QUEUE_FULL -> ProblemType.INGEST_QUEUE_FULL;
            case WAITED_TOO_LONG -> ProblemType.INGEST_TIMEOUT;
            case WRITE_TIMED_OUT -> ProblemType.INGEST_WRITE_TIMEOUT;
        };
        int retryAfter = IngestProblem.Overloaded.RETRY_AFTER_SECONDS;
        ApiProblem problem = type.status() == HttpStatus.TOO_MANY_REQUESTS // the client's own share, not the service's
                ? ApiProblem.tooManyRequests(type, overloaded.getMessage(), retryAfter)
                : ApiProblem.unavailable(type, overloaded.getMessage(), retryAfter);
        return overloaded.queuedBytes() >= 0 ? problem.with("queuedBytes", overloaded.queuedBytes()) : problem;
    }
}
