package dev.dispatcher.app.api;

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
 * mapping the request) through Spring's {@link ResponseEntityExceptionHandler}, and any other failure as
 * {@link ApiProblem#ofFailure} says (a retryable database failure 503, anything else 500, logged once). Ingest
 * answers its own problems ({@link IngestResponder}).
 */
@RestControllerAdvice
final class ApiExceptionHandler extends ResponseEntityExceptionHandler {


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
        ApiProblem problem = ApiProblem.ofFailure(error, exchange.getRequest());
        return Mono.just(ResponseEntity.status(problem.status()).headers(problem.headers())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem.toProblemDetail()));
    }
}
