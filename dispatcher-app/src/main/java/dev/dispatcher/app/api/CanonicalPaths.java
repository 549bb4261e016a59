package dev.dispatcher.app.api;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Refuses, with {@code 400} ({@code non-canonical-path}) and before anything else looks at the request, a path that
 * routing would read otherwise than it is written: a percent-encoded character that needs no encoding (a letter, a
 * digit, {@code - . _ ~}: RFC 3986 section 2.3 says they are to be decoded) or that changes the path's structure
 * ({@code / \ ; %}), a {@code .} or {@code ..} segment, an empty segment ({@code //}), a {@code ;} (path parameters,
 * which routing strips from a segment) or a {@code \}, and a {@code %} not followed by two hexadecimal digits.
 *
 * <p>Why: the rules that look at the path ({@link JsonOnlyMutations}' {@code /v1/} prefix, {@link HealthCallLimit},
 * the fast paths {@link IngestFastPath} and {@link HealthFastPath}) compare the path as written, while WebFlux's
 * routing and Spring Security's matchers match it decoded segment by segment: {@code POST /%761/relay/pause} was
 * routed to {@code /v1/relay/pause} but skipped the JSON-only rule. On a path this filter lets through, every
 * literal segment of the API reads the same written and decoded (what remains encoded decodes to a character no
 * path of the API holds), so every rule sees the path routing sees. Runs first among the web filters, the health
 * limit and the security chain included; the fast paths, which run before any filter, take only the exact
 * canonical paths they serve and leave any other spelling to the framework, hence to this filter.
 */
final class CanonicalPaths implements WebFilter, Ordered {

    private final SecurityProblems problems;

    CanonicalPaths(SecurityProblems problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().value();
        String fault = fault(path);
        return fault == null ? chain.filter(exchange) : problems.nonCanonicalPath(exchange, fault);
    }

    /** Before everything else: {@link HealthCallLimit} and the security chain come after. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** What makes the raw (still encoded) {@code path} non-canonical, or null when it is canonical. */
    static String fault(String path) {
        int length = path.length();
        int segmentStart = 0;
        for (int i = 0; i <= length; i++) {
            char c = i < length ? path.charAt(i) : '/';
            if (c == '/') {
                String segment = path.substring(segmentStart, i);
                if (segment.equals(".") || segment.equals("..")) {
                    return "a '" + segment + "' segment";
                }
                if (segment.isEmpty() && i > 0 && i < length) {
                    return "an empty segment ('//')";
                }
                segmentStart = i + 1;
            } else if (c == ';' || c == '\\') {
                return "a '" + c + "'";
            } else if (c == '%') {
                int decoded = i + 2 < length ? hexPair(path.charAt(i + 1), path.charAt(i + 2)) : -1;
                if (decoded < 0) {
                    return "a '%' not followed by two hexadecimal digits";
                }
                if (unreserved(decoded) || decoded == '/' || decoded == '\\' || decoded == ';' || decoded == '%') {
                    return "'" + path.substring(i, i + 3) + "', an encoded '" + (char) decoded
                            + "' (write it as it is" + (unreserved(decoded) ? "" : ", or not at all") + ")";
                }
                i += 2;
            }
        }
        return null;
    }

    private static int hexPair(char high, char low) {
        int h = high < 128 ? Character.digit(high, 16) : -1;
        int l = low < 128 ? Character.digit(low, 16) : -1;
        return h < 0 || l < 0 ? -1 : h * 16 + l;
    }

    /** RFC 3986's unreserved characters: ALPHA, DIGIT, {@code - . _ ~}. */
    private static boolean unreserved(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
