package dev.dispatcher.app.api;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * A request the API refuses, carried as an error signal and rendered once as an RFC 9457 problem
 * ({@code application/problem+json}) by {@link ApiExceptionHandler}.
 *
 * <p>{@code type} is a short slug, published as {@code https://dispatcher.dev/problems/<slug>}; {@code field}
 * names the offending request part ({@code topic}, {@code [3].headers.x-id}, {@code If-Match}) when there is one.
 * Never carries secrets: details quote only request structure, never credentials.
 */
final class ApiProblem extends RuntimeException {

    static final String TYPE_BASE = "https://dispatcher.dev/problems/";

    private final HttpStatus status;
    private final String type;
    private final String field;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final HttpHeaders headers = new HttpHeaders();

    private ApiProblem(HttpStatus status, String type, String field, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.field = field;
    }

    /** 400: a field is missing, of the wrong type, or out of its limits. */
    static ApiProblem invalid(String field, String detail) {
        return new ApiProblem(HttpStatus.BAD_REQUEST, "invalid-field", field, detail);
    }

    /** 400: the body is not (well-formed, single-value) JSON. */
    static ApiProblem malformed(String detail) {
        return new ApiProblem(HttpStatus.BAD_REQUEST, "malformed-json", null, detail);
    }

    /** 413: the body, a payload or a batch is larger than allowed. */
    static ApiProblem tooLarge(String field, String detail) {
        return new ApiProblem(HttpStatus.CONTENT_TOO_LARGE, "too-large", field, detail);
    }

    /** 403: the caller is authenticated and holds the role, but may not do this (a topic outside its token's grant). */
    static ApiProblem forbidden(String type, String field, String detail) {
        return new ApiProblem(HttpStatus.FORBIDDEN, type, field, detail);
    }

    static ApiProblem notFound(String detail) {
        return new ApiProblem(HttpStatus.NOT_FOUND, "not-found", null, detail);
    }

    /** 409: the same id with other content, a stale version, or an illegal status change. */
    static ApiProblem conflict(String type, String detail) {
        return new ApiProblem(HttpStatus.CONFLICT, type, null, detail);
    }

    /** 428: a mutation without {@code If-Match}. */
    static ApiProblem preconditionRequired(String detail) {
        return new ApiProblem(HttpStatus.PRECONDITION_REQUIRED, "precondition-required", "If-Match", detail);
    }

    /** 429 with {@code Retry-After}. */
    static ApiProblem backlogFull(long backlog, long max, int retryAfterSeconds) {
        ApiProblem problem = new ApiProblem(HttpStatus.TOO_MANY_REQUESTS, "backlog-full", null,
                "the outbox backlog (" + backlog + " live messages) is at its bound dispatcher.ingest.max-backlog ("
                        + max + "); retry later");
        problem.headers.set(HttpHeaders.RETRY_AFTER, Integer.toString(retryAfterSeconds));
        return problem.with("backlog", backlog);
    }

    /** 503 with {@code Retry-After}: the service cannot take the request now. */
    static ApiProblem unavailable(String type, String detail, int retryAfterSeconds) {
        ApiProblem problem = new ApiProblem(HttpStatus.SERVICE_UNAVAILABLE, type, null, detail);
        problem.headers.set(HttpHeaders.RETRY_AFTER, Integer.toString(retryAfterSeconds));
        return problem;
    }

    ApiProblem with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    HttpStatus status() {
        return status;
    }

    ResponseEntity<ProblemDetail> toResponse() {
        return ResponseEntity.status(status).headers(headers).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(toProblemDetail());
    }

    ProblemDetail toProblemDetail() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, getMessage());
        problem.setType(URI.create(TYPE_BASE + type));
        problem.setTitle(status.getReasonPhrase());
        if (field != null) {
            problem.setProperty("field", field);
        }
        properties.forEach(problem::setProperty);
        return problem;
    }
}
