package dev.dispatcher.app.api;

import java.time.Duration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The security chain's refusals as {@code application/problem+json}: {@code 401} (no or bad credentials),
 * {@code 403} (wrong role), {@code 429} (too many failed authentications, {@link LoginThrottle}), {@code 415}
 * (a mutation without a JSON body, {@link JsonOnlyMutations}) and {@code 400} (a path not in its canonical form,
 * {@link CanonicalPaths}). The detail never echoes the credentials. The 401
 * names the schemes the API accepts in {@code WWW-Authenticate}, leaving Basic out for browsers
 * ({@link #fromBrowser}).
 */
final class SecurityProblems implements ServerAuthenticationEntryPoint, ServerAccessDeniedHandler {

    static final String WWW_AUTHENTICATE = "Basic realm=\"dispatcher\", Bearer realm=\"dispatcher\"";
    /** The challenge a browser gets: one it never answers with a login dialog of its own. */
    static final String BROWSER_WWW_AUTHENTICATE = "Bearer realm=\"dispatcher\"";
    static final String X_REQUESTED_WITH = "X-Requested-With";
    static final String XML_HTTP_REQUEST = "XMLHttpRequest";
    static final String SEC_FETCH_MODE = "Sec-Fetch-Mode";
    static final String UPGRADE_INSECURE_REQUESTS = "Upgrade-Insecure-Requests";

    @Override
    public Mono<Void> commence(ServerWebExchange exchange, AuthenticationException ex) {
        // A browser answers a Basic challenge with its own login dialog, then caches what was typed and sends it
        // with every later request to this origin, forged cross-site ones included. So browsers get only the
        // Bearer challenge; every other client gets both schemes.
        exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE,
                fromBrowser(exchange.getRequest().getHeaders()) ? BROWSER_WWW_AUTHENTICATE : WWW_AUTHENTICATE);
        return write(exchange, ProblemType.UNAUTHENTICATED,
                "credentials are missing or invalid: use HTTP Basic, a Bearer API token or a Bearer JWT");
    }

    /**
     * Whether a request comes from a browser: it carries Fetch Metadata ({@code Sec-Fetch-Mode}, which browsers
     * send and cannot be told to leave out), says it is a script's ({@code X-Requested-With: XMLHttpRequest}, the
     * console's), is a navigation ({@code Accept} naming {@code text/html}, or {@code Upgrade-Insecure-Requests}).
     * API clients (curl, HTTP libraries) send none of these.
     */
    static boolean fromBrowser(HttpHeaders headers) {
        if (headers.containsHeader(SEC_FETCH_MODE) || headers.containsHeader(UPGRADE_INSECURE_REQUESTS)
                || XML_HTTP_REQUEST.equalsIgnoreCase(headers.getFirst(X_REQUESTED_WITH))) {
            return true;
        }
        try {
            return headers.getAccept().stream().anyMatch(type -> type.equalsTypeAndSubtype(MediaType.TEXT_HTML));
        } catch (InvalidMediaTypeException unreadable) {
            return false;
        }
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, AccessDeniedException denied) {
        return exchange.getPrincipal().map(p -> p.getName()).defaultIfEmpty("the caller")
                .flatMap(name -> write(exchange, ProblemType.FORBIDDEN, name
                        + " lacks the role this endpoint needs (PRODUCER for ingest, VIEWER or OPERATOR for reads,"
                        + " OPERATOR for changes)"));
    }

    /** {@code 429} with {@code Retry-After}: the client or the user name made too many failed authentications. */
    Mono<Void> tooManyFailures(ServerWebExchange exchange, Duration wait) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        return write(exchange, ProblemType.TOO_MANY_FAILED_LOGINS, "too many failed"
                + " authentications from this client or for this user name; nothing was checked, retry after "
                + seconds + " s");
    }

    /** {@code 429}: a client that calls the health endpoints faster than {@link HealthCallLimit} allows. */
    Mono<Void> tooManyHealthCalls(ServerWebExchange exchange) {
        long seconds = Math.max(1, HealthCallLimit.WAIT.toSeconds());
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        return write(exchange, ProblemType.TOO_MANY_HEALTH_CALLS, "more health calls"
                + " from this client than a burst of " + HealthCallLimit.BURST + ", then "
                + HealthCallLimit.CALLS_PER_SECOND + " a second; retry after " + seconds + " s");
    }

    /** {@code 415}: a mutation whose body is not declared {@code application/json}. */
    Mono<Void> jsonRequired(ServerWebExchange exchange, String contentType) {
        return write(exchange, ProblemType.UNSUPPORTED_MEDIA_TYPE, "Content-Type "
                + (contentType == null ? "is missing" : "'" + contentType + "' is not supported")
                + "; every POST, PUT, PATCH and DELETE under /v1 takes Content-Type application/json,"
                + " with or without a body");
    }

    /** {@code 400}: a path not written in its canonical form ({@link CanonicalPaths}); {@code fault} says why. */
    Mono<Void> nonCanonicalPath(ServerWebExchange exchange, String fault) {
        return write(exchange, ProblemType.NON_CANONICAL_PATH, "the path holds " + fault + "; write every path"
                + " as the API documents it, with no encoded letter, digit, '-', '.', '_', '~', '/', '\\', ';'"
                + " or '%', no '.', '..' or empty segment, no ';' and no '\\'");
    }

    private static Mono<Void> write(ServerWebExchange exchange, ProblemType type, String detail) {
        HttpStatus status = type.status();
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        java.util.Map<String, Object> problem = new java.util.LinkedHashMap<>();
        problem.put("type", type.uri().toString());
        problem.put("title", status.getReasonPhrase());
        problem.put("status", status.value());
        problem.put("detail", detail);
        problem.put("instance", exchange.getRequest().getPath().value());
        byte[] body = ApiJson.JSON.writeValueAsBytes(problem);
        DataBuffer buffer = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(buffer));
    }
}
