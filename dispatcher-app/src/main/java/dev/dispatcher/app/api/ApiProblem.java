package dev.dispatcher.app.api;

import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.OperatorReadTimeout;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * A request the API refuses, carried as an error signal and rendered once as an RFC 9457 problem
 * ({@code application/problem+json}): by {@link ApiExceptionHandler}, or by {@link IngestResponder} for ingest.
 *
 * <p>{@code type} is one of {@link ProblemType}'s, which also fixes the status; {@code field} names the offending
 * request part ({@code topic}, {@code [3].headers.x-id}, {@code If-Match}) when there is one.
 * Never carries secrets: details quote only request structure, never credentials.
 */
final class ApiProblem extends RuntimeException {

    /** Retry-After of a 503 for a database that timed out or is unavailable. */
    static final int DATABASE_RETRY_AFTER_SECONDS = 2;
    private static final Logger log = LoggerFactory.getLogger(ApiProblem.class);

    private final ProblemType type;
    private final String field;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final HttpHeaders headers = new HttpHeaders();

    private ApiProblem(ProblemType type, String field, String detail) {
        super(detail, null, false, false);
        this.type = type;
        this.field = field;
    }

    /** 400: a field is missing, of the wrong type, or out of its limits. */
    static ApiProblem invalid(String field, String detail) {
        return new ApiProblem(ProblemType.INVALID_FIELD, field, detail);
    }

    /** 400: the body is not (well-formed, single-value) JSON. */
    static ApiProblem malformed(String detail) {
        return new ApiProblem(ProblemType.MALFORMED_JSON, null, detail);
    }

    /**
     * 408 with {@code Connection: close}: the body did not arrive in time; the rest of it is not read, so the
     * connection cannot carry another request.
     */
    static ApiProblem bodyTimeout(String detail) {
        ApiProblem problem = new ApiProblem(ProblemType.BODY_TIMEOUT, null, detail);
        problem.headers.set(HttpHeaders.CONNECTION, "close");
        return problem;
    }

    /** 413: the body, a payload or a batch is larger than allowed. */
    static ApiProblem tooLarge(String field, String detail) {
        return new ApiProblem(ProblemType.TOO_LARGE, field, detail);
    }

    /** 403: the caller is authenticated and holds the role, but may not do this (a topic outside its token's grant). */
    static ApiProblem topicForbidden(String field, String detail) {
        return new ApiProblem(ProblemType.TOPIC_FORBIDDEN, field, detail);
    }

    static ApiProblem notFound(String detail) {
        return new ApiProblem(ProblemType.NOT_FOUND, null, detail);
    }

    /** 409: the same id with other content, a stale version, or an illegal status change. */
    static ApiProblem conflict(ProblemType type, String detail) {
        return of(type, HttpStatus.CONFLICT, detail);
    }

    /** 428: a mutation without {@code If-Match}. */
    static ApiProblem preconditionRequired(String detail) {
        return new ApiProblem(ProblemType.PRECONDITION_REQUIRED, "If-Match", detail);
    }

    /** 429 with {@code Retry-After}: the service takes no more of this now (the outbox backlog is full). */
    static ApiProblem tooManyRequests(ProblemType type, String detail, int retryAfterSeconds) {
        ApiProblem problem = of(type, HttpStatus.TOO_MANY_REQUESTS, detail);
        problem.headers.set(HttpHeaders.RETRY_AFTER, Integer.toString(retryAfterSeconds));
        return problem;
    }

    /** 503 with {@code Retry-After}: the service cannot take the request now. */
    static ApiProblem unavailable(ProblemType type, String detail, int retryAfterSeconds) {
        ApiProblem problem = of(type, HttpStatus.SERVICE_UNAVAILABLE, detail);
        problem.headers.set(HttpHeaders.RETRY_AFTER, Integer.toString(retryAfterSeconds));
        return problem;
    }

    /**
     * The answer to a failure no handler expected, logged at WARN once with the request: a database failure the
     * caller can retry (a timeout, an unavailable or read-only database) is a 503 with {@code Retry-After}; anything
     * else a 500 without internals, carrying the request's id.
     */
    static ApiProblem ofFailure(Throwable error, ServerHttpRequest request) {
        String described = request.getId() + " " + request.getMethod() + " " + request.getPath();
        ApiProblem unavailable = error instanceof OperatorReadTimeout read ? readTooLong(read)
                : switch (DatabaseFailures.classify(error)) {
            case TIMEOUT -> unavailable(ProblemType.DATABASE_TIMEOUT, "the database did not answer in time (a"
                    + " statement or lock wait ran out); nothing was written, retry later",
                    DATABASE_RETRY_AFTER_SECONDS);
            case TRANSIENT -> DatabaseFailures.readOnly(error) ? unavailable(ProblemType.DATABASE_READ_ONLY, "the"
                    + " database refused the write because it is read-only (a failover in progress, or a standby"
                    + " reached through a stale address); nothing was written, retry later",
                    DATABASE_RETRY_AFTER_SECONDS)
                    : unavailable(ProblemType.DATABASE_UNAVAILABLE, "the database is unavailable or busy (no"
                    + " connection in time, a lost connection, a deadlock); a write whose connection was lost while it"
                    + " committed may have been applied, so repeat it with the same id", DATABASE_RETRY_AFTER_SECONDS);
            case PERMANENT -> null;
        };
        if (unavailable != null) {
            log.warn("request {} answered 503 ({}): {}", described, unavailable.getMessage(), error.toString());
            return unavailable;
        }
        log.warn("request {} failed unexpectedly and answered 500; it may or may not have been applied", described,
                error);
        return new ApiProblem(ProblemType.INTERNAL_ERROR, null, "the request failed on the server; it may or may not"
                + " have been applied, see the logs (request " + request.getId() + ")")
                .with("requestId", request.getId());
    }

    /** 503: an operator listing PostgreSQL cancelled at {@code dispatcher.operator.read-timeout}. */
    private static ApiProblem readTooLong(OperatorReadTimeout read) {
        return unavailable(ProblemType.DATABASE_TIMEOUT, "the read took longer than " + read.timeout().toMillis()
                + " ms (dispatcher.operator.read-timeout) and was stopped: few rows match this filter among the many"
                + " it has to walk; narrow it (a status, a topic with a status, a key) or page from a later cursor",
                DATABASE_RETRY_AFTER_SECONDS);
    }

    private static ApiProblem of(ProblemType type, HttpStatus expected, String detail) {
        if (type.status() != expected) {
            throw new IllegalArgumentException(type + " is answered with " + type.status() + ", not " + expected);
        }
        return new ApiProblem(type, null, detail);
    }

    ApiProblem with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    HttpStatus status() {
        return type.status();
    }

    /** The headers the answer carries beside its content type ({@code Retry-After}). */
    HttpHeaders headers() {
        return headers;
    }

    /** The problem's JSON object, as {@link #toProblemDetail()} is written, for an answer written directly. */
    Map<String, Object> body(String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uri().toString());
        body.put("title", status().getReasonPhrase());
        body.put("status", status().value());
        body.put("detail", getMessage());
        body.put("instance", instance);
        if (field != null) {
            body.put("field", field);
        }
        body.putAll(properties);
        return body;
    }

    ResponseEntity<ProblemDetail> toResponse() {
        return ResponseEntity.status(status()).headers(headers).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(toProblemDetail());
    }

    ProblemDetail toProblemDetail() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status(), getMessage());
        problem.setType(type.uri());
        problem.setTitle(status().getReasonPhrase());
        if (field != null) {
            problem.setProperty("field", field);
        }
        properties.forEach(problem::setProperty);
        return problem;
    }
}
