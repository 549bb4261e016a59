package dev.dispatcher.app.api;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The API's defence against cross-site request forgery: every request under {@code /v1} other than {@code GET},
 * {@code HEAD} and {@code OPTIONS} must declare {@code Content-Type: application/json} (parameters such as a charset
 * allowed), with or without a body, or it answers {@code 415} and reaches no controller.
 *
 * <p>Why this is enough: a page on another origin can make a browser send a request with the browser's cached
 * credentials only as a "simple" request, whose content type is one of {@code application/x-www-form-urlencoded},
 * {@code multipart/form-data} or {@code text/plain} (or none, for a bodiless {@code fetch}); declaring
 * {@code application/json} makes the browser ask first (a CORS preflight), which this service never grants. So
 * bodiless mutations (pause, resume, replay) take the header too. The API keeps no session and sets no cookie, so
 * there is no token-based CSRF protection to add. Runs in the API's filter chain after authorization, so a caller
 * without the role still gets its {@code 401} or {@code 403}.
 */
final class JsonOnlyMutations implements WebFilter {

    static final String API_PREFIX = "/v1/";

    private final SecurityProblems problems;

    JsonOnlyMutations(SecurityProblems problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (!mutates(request.getMethod()) || !request.getPath().pathWithinApplication().value().startsWith(API_PREFIX)
                || declaresJson(request.getHeaders())) {
            return chain.filter(exchange);
        }
        return problems.jsonRequired(exchange, request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
    }

    private static boolean mutates(HttpMethod method) {
        return !(HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) || HttpMethod.OPTIONS.equals(method));
    }

    static boolean declaresJson(HttpHeaders headers) {
        try {
            MediaType declared = headers.getContentType();
            return declared != null && MediaType.APPLICATION_JSON.equalsTypeAndSubtype(declared);
        } catch (InvalidMediaTypeException unreadable) {
            return false;
        }
    }
}
