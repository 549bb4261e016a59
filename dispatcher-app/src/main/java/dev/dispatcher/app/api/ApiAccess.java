package dev.dispatcher.app.api;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.security.config.web.server.ServerHttpSecurity.AuthorizeExchangeSpec;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Who may call what under {@code /v1}, in the order the rules apply (the first that matches decides): the table
 * {@link ApiSecurityConfiguration} enforces and the OpenAPI document states ({@link ApiDocsConfiguration}), so the
 * two cannot drift apart. A role is granted by a Basic user's or an API token's {@code roles}, or by a JWT's scope
 * ({@link #SCOPES}).
 */
enum ApiAccess {

    /** Ingest: PRODUCER (and a token's topics, checked per message). */
    PRODUCE(HttpMethod.POST, List.of("/v1/messages", "/v1/messages/batch", "/v1/sources/*/messages",
            "/v1/sources/*/messages/batch"), List.of("PRODUCER")),
    /** {@code GET /v1/me}: any authenticated caller. */
    IDENTIFY(HttpMethod.GET, List.of("/v1/me"), List.of()),
    /** Every other read: VIEWER or OPERATOR. */
    READ(HttpMethod.GET, List.of("/v1/**"), List.of("VIEWER", "OPERATOR")),
    /** Everything else (every mutation): OPERATOR. */
    OPERATE(null, List.of("/v1/**"), List.of("OPERATOR"));

    /** The JWT scope that grants each role. */
    static final Map<String, String> SCOPES = Map.of("PRODUCER", "dispatcher:produce", "VIEWER", "dispatcher:view",
            "OPERATOR", "dispatcher:operate");

    private final HttpMethod method;
    private final List<String> paths;
    private final List<String> roles;

    ApiAccess(HttpMethod method, List<String> paths, List<String> roles) {
        this.method = method;
        this.paths = paths;
        this.roles = roles;
    }

    /** The roles any one of which grants access; empty: any authenticated caller. */
    List<String> roles() {
        return roles;
    }

    /** The rule that decides a request for {@code path} (a path template such as {@code /v1/messages/{id}}). */
    static ApiAccess of(HttpMethod method, String path) {
        PathContainer parsed = PathContainer.parsePath(path);
        for (ApiAccess access : values()) {
            if ((access.method == null || access.method.equals(method)) && access.paths.stream()
                    .anyMatch(pattern -> PathPatternParser.defaultInstance.parse(pattern).matches(parsed))) {
                return access;
            }
        }
        throw new IllegalArgumentException(method + " " + path + " is not under /v1");
    }

    /** Adds the rule to Spring Security's; {@link #OPERATE} as {@code anyExchange}, so it closes the chain. */
    void authorize(AuthorizeExchangeSpec exchanges) {
        AuthorizeExchangeSpec.Access access = this == OPERATE ? exchanges.anyExchange()
                : exchanges.pathMatchers(method, paths.toArray(String[]::new));
        if (roles.isEmpty()) {
            access.authenticated();
        } else {
            access.hasAnyRole(roles.toArray(String[]::new));
        }
    }
}
