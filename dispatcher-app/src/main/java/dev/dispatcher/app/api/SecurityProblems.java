package dev.dispatcher.app.api;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code 401} (no or bad credentials) and {@code 403} (wrong role) as {@code application/problem+json}. The
 * detail never echoes the credentials; the 401 names the schemes the API accepts in {@code WWW-Authenticate},
 * except to requests marked {@code X-Requested-With: XMLHttpRequest} (the console's), see {@link #commence}.
 */
final class SecurityProblems implements ServerAuthenticationEntryPoint, ServerAccessDeniedHandler {

    static final String WWW_AUTHENTICATE = "Basic realm=\"dispatcher\", Bearer realm=\"dispatcher\"";
    static final String X_REQUESTED_WITH = "X-Requested-With";
    static final String XML_HTTP_REQUEST = "XMLHttpRequest";

    @Override
    public Mono<Void> commence(ServerWebExchange exchange, AuthenticationException ex) {
        // A script that says so (the console) gets the 401 without the challenge: a browser would answer a Basic
        // challenge with its own login dialog and then cache and resend those credentials on every request to
        // this origin, including forged cross-site ones. Every other client gets the challenge as before.
        if (!XML_HTTP_REQUEST.equals(exchange.getRequest().getHeaders().getFirst(X_REQUESTED_WITH))) {
            exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, WWW_AUTHENTICATE);
        }
        return write(exchange, HttpStatus.UNAUTHORIZED, "unauthenticated",
                "credentials are missing or invalid: use HTTP Basic, a Bearer API token or a Bearer JWT");
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, AccessDeniedException denied) {
        return exchange.getPrincipal().map(p -> p.getName()).defaultIfEmpty("the caller")
                .flatMap(name -> write(exchange, HttpStatus.FORBIDDEN, "forbidden", name
                        + " lacks the role this endpoint needs (PRODUCER for ingest, OPERATOR for everything else)"));
    }

    private static Mono<Void> write(ServerWebExchange exchange, HttpStatus status, String type, String detail) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        java.util.Map<String, Object> problem = new java.util.LinkedHashMap<>();
        problem.put("type", ApiProblem.TYPE_BASE + type);
        problem.put("title", status.getReasonPhrase());
        problem.put("status", status.value());
        problem.put("detail", detail);
        problem.put("instance", exchange.getRequest().getPath().value());
        byte[] body = IngestRequestParser.JSON.writeValueAsBytes(problem);
        DataBuffer buffer = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(buffer));
    }
}
