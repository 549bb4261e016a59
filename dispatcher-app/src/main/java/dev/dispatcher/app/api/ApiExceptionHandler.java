package dev.dispatcher.app.api;

import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.IngestStore;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.core.publisher.Mono;

/**
 * Renders every error of annotated handlers as {@code application/problem+json}: {@link ApiProblem}s as they
 * are, WebFlux's own (415 wrong media type, 405, 406, 400 for unreadable parameters, also when raised while
 * mapping the request) through Spring's {@link ResponseEntityExceptionHandler}, database failures the caller can
 * retry (timeouts, an unavailable or read-only database) as a 503 with {@code Retry-After}, anything else as a 500
 * without internals. Both are logged here at WARN, once, with the request's id, which the 500 problem carries too.
 */
@RestControllerAdvice
final class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);
    /** Retry-After of a 503 for a database that timed out or is unavailable. */
    static final int RETRY_AFTER_SECONDS = 2;

    /** WebFlux's own problems (415 without a Content-Type, for one) may lack a detail: name the problem. */
    @Override
    protected Mono<ResponseEntity<Object>> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
            HttpStatusCode status, ServerWebExchange exchange) {
        if (body == null && ex instanceof ErrorResponse known) {
            body = known.updateAndGetBody(getMessageSource(), getLocale(exchange));
        }
        if (body instanceof ProblemDetail problem && problem.getDetail() == null) {
            String reason = ex instanceof ResponseStatusException rse && rse.getReason() != null ? rse.getReason()
                    : HttpStatus.valueOf(status.value()).getReasonPhrase();
            String contentType = exchange.getRequest().getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
            problem.setDetail(status.value() == HttpStatus.UNSUPPORTED_MEDIA_TYPE.value()
                    ? "Content-Type " + (contentType == null ? "is missing" : "'" + contentType + "' is not supported")
                            + "; send application/json"
                    : reason);
        }
        return super.handleExceptionInternal(ex, body, headers, status, exchange);
    }

    private static java.util.Locale getLocale(ServerWebExchange exchange) {
        return exchange.getLocaleContext().getLocale() != null ? exchange.getLocaleContext().getLocale()
                : java.util.Locale.getDefault();
    }

    @ExceptionHandler(ApiProblem.class)
    Mono<ResponseEntity<ProblemDetail>> problem(ApiProblem problem) {
        return Mono.just(problem.toResponse());
    }

    /** Deleted by retention while the ingest ran: extremely rare, and not a success. */
    @ExceptionHandler(IngestStore.RowRemovedException.class)
    Mono<ResponseEntity<ProblemDetail>> removed(IngestStore.RowRemovedException removed) {
        return Mono.just(ApiProblem.conflict("id-conflict", removed.getMessage())
                .with("id", removed.id().toString()).toResponse());
    }

    @ExceptionHandler(Exception.class)
    Mono<ResponseEntity<Object>> unexpected(Exception error, ServerWebExchange exchange) {
        if (DisconnectedClientHelper.isClientDisconnectedException(error)) {
            // The client closed its connection before the answer was written (a load generator stopping, a client
            // timing out): nobody is left to answer, and the request's outcome stands as the database has it. Handed
            // back to WebFlux, which drops it quietly, instead of a WARN and a 500 written to a closed connection.
            return Mono.error(error);
        }
        if (error instanceof ErrorResponse known) {
            return Mono.just(ResponseEntity.status(known.getStatusCode()).headers(known.getHeaders())
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(known.getBody()));
        }
        String request = exchange.getRequest().getId() + " " + exchange.getRequest().getMethod() + " "
                + exchange.getRequest().getPath();
        ApiProblem unavailable = switch (DatabaseFailures.classify(error)) {
            case TIMEOUT -> ApiProblem.unavailable("database-timeout", "the database did not answer in time (a"
                    + " statement or lock wait ran out); nothing was written, retry later", RETRY_AFTER_SECONDS);
            case TRANSIENT -> DatabaseFailures.readOnly(error) ? ApiProblem.unavailable("database-read-only", "the"
                    + " database refused the write because it is read-only (a failover in progress, or a standby"
                    + " reached through a stale address); nothing was written, retry later", RETRY_AFTER_SECONDS)
                    : ApiProblem.unavailable("database-unavailable", "the database is unavailable or busy"
                    + " (no connection in time, a lost connection, a deadlock); a write whose connection was lost"
                    + " while it committed may have been applied, so repeat it with the same id", RETRY_AFTER_SECONDS);
            case PERMANENT -> null;
        };
        if (unavailable != null) {
            log.warn("request {} answered 503 ({}): {}", request, unavailable.getMessage(), error.toString());
            return Mono.just(ResponseEntity.status(unavailable.status()).headers(unavailable.toResponse().getHeaders())
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(unavailable.toProblemDetail()));
        }
        log.warn("request {} failed unexpectedly and answered 500; it may or may not have been applied", request,
                error);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "the request failed on the server; it may or may not have been applied, see the logs (request "
                        + exchange.getRequest().getId() + ")");
        problem.setType(URI.create(ApiProblem.TYPE_BASE + "internal-error"));
        problem.setTitle(HttpStatus.INTERNAL_SERVER_ERROR.getReasonPhrase());
        problem.setProperty("requestId", exchange.getRequest().getId());
        return Mono.just(ResponseEntity.internalServerError().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem));
    }
}
