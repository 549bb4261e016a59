package dev.dispatcher.app.api;

import java.net.URI;
import java.util.Locale;
import org.springframework.http.HttpStatus;

/**
 * Every {@code type} of the RFC 9457 problems the API answers with, each with the one status it is answered with:
 * {@code https://dispatcher.dev/problems/<slug>}, the slug being the constant's name in lower case with hyphens
 * ({@link #INVALID_FIELD} is {@code invalid-field}). A closed set, so a problem cannot be answered with a status other
 * than its own, and the OpenAPI document ({@link ApiDocsConfiguration}) lists them all. WebFlux's own refusals that
 * reach no handler of ours (405, 406) carry {@code about:blank}.
 */
enum ProblemType {

    /** A field is missing, of the wrong type, or out of its limits; {@code field} names it. */
    INVALID_FIELD(HttpStatus.BAD_REQUEST),
    /** The body is not (well-formed, single-value) JSON. */
    MALFORMED_JSON(HttpStatus.BAD_REQUEST),
    /** The path is not written in its one canonical form ({@link CanonicalPaths}); nothing was looked at. */
    NON_CANONICAL_PATH(HttpStatus.BAD_REQUEST),
    /** Credentials are missing or invalid. */
    UNAUTHENTICATED(HttpStatus.UNAUTHORIZED),
    /** The caller lacks the role the endpoint needs. */
    FORBIDDEN(HttpStatus.FORBIDDEN),
    /** A message's topic lies outside the caller's API token's {@code topics}; nothing was written. */
    TOPIC_FORBIDDEN(HttpStatus.FORBIDDEN),
    NOT_FOUND(HttpStatus.NOT_FOUND),
    /** The message id exists with other content; nothing was written. */
    ID_CONFLICT(HttpStatus.CONFLICT),
    /** {@code If-Match} names another version than the row's; {@code current} holds the row. */
    VERSION_MISMATCH(HttpStatus.CONFLICT),
    /** The row's status does not allow the move (replay of a live message); {@code current} holds the row. */
    ILLEGAL_TRANSITION(HttpStatus.CONFLICT),
    /** Another writer changed the row while the request ran; {@code current} holds the row. */
    CONCURRENCY_CONFLICT(HttpStatus.CONFLICT),
    /**
     * An ingest body did not arrive whole within {@code dispatcher.ingest.body-timeout}; nothing was written; the
     * connection is closed.
     */
    BODY_TIMEOUT(HttpStatus.REQUEST_TIMEOUT),
    /** The body, a payload or a batch is larger than allowed. */
    TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE),
    /** A mutation under {@code /v1} without {@code Content-Type: application/json}. */
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE),
    /** A mutation without {@code If-Match}. */
    PRECONDITION_REQUIRED(HttpStatus.PRECONDITION_REQUIRED),
    /** The outbox backlog is at {@code dispatcher.ingest.max-backlog}; {@code Retry-After}. */
    BACKLOG_FULL(HttpStatus.TOO_MANY_REQUESTS),
    /** Too many failed authentications from this client or for this name; {@code Retry-After}. */
    TOO_MANY_FAILED_LOGINS(HttpStatus.TOO_MANY_REQUESTS),
    /** More health calls a second from this client address than {@link HealthCallLimit} answers; {@code Retry-After}. */
    TOO_MANY_HEALTH_CALLS(HttpStatus.TOO_MANY_REQUESTS),
    /**
     * This client already has {@code dispatcher.ingest.max-concurrent-requests-per-client} ingest requests in flight;
     * the body was not read; {@code Retry-After}.
     */
    TOO_MANY_INGEST_REQUESTS(HttpStatus.TOO_MANY_REQUESTS),
    /** A failure nobody expected; it may or may not have been applied ({@code requestId} finds it in the log). */
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR),
    /** {@code dispatcher.ingest.max-concurrent-requests} reached; the body was not read; {@code Retry-After}. */
    INGEST_BUSY(HttpStatus.SERVICE_UNAVAILABLE),
    /** {@code dispatcher.ingest.max-queued-bytes} reached; the body was not read; {@code Retry-After}. */
    INGEST_MEMORY_FULL(HttpStatus.SERVICE_UNAVAILABLE),
    /** The request's lane holds too many waiting messages; nothing was written; {@code Retry-After}. */
    INGEST_QUEUE_FULL(HttpStatus.SERVICE_UNAVAILABLE),
    /** The request waited {@code dispatcher.ingest.timeout} for its lane; nothing was written; {@code Retry-After}. */
    INGEST_TIMEOUT(HttpStatus.SERVICE_UNAVAILABLE),
    /** The request's statement did not finish in time: it may have been applied, repeat it with the same id. */
    INGEST_WRITE_TIMEOUT(HttpStatus.SERVICE_UNAVAILABLE),
    /** A statement or lock wait ran out; nothing was written; {@code Retry-After}. */
    DATABASE_TIMEOUT(HttpStatus.SERVICE_UNAVAILABLE),
    /** The database refused a write because it is read-only (a failover); nothing was written; {@code Retry-After}. */
    DATABASE_READ_ONLY(HttpStatus.SERVICE_UNAVAILABLE),
    /** No connection in time, or a connection lost (a write may have been applied); {@code Retry-After}. */
    DATABASE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE);

    static final String BASE = "https://dispatcher.dev/problems/";

    private final HttpStatus status;

    ProblemType(HttpStatus status) {
        this.status = status;
    }

    HttpStatus status() {
        return status;
    }

    /** {@code invalid-field}. */
    String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code https://dispatcher.dev/problems/invalid-field}. */
    URI uri() {
        return URI.create(BASE + slug());
    }
}
