package dev.dispatcher.app.console;

import java.net.URI;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.header.ReferrerPolicyServerHttpHeadersWriter.ReferrerPolicy;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * Serves the operator console: static HTML, CSS and JavaScript under {@code /console/} (from
 * {@code classpath:static/console/}), no build step and no third-party script.
 *
 * <p>Security: the console's files hold no data and no secret, so they are served to anyone, like a client program
 * one could download; every figure and every action comes from {@code /v1}, which the API's own filter chain guards
 * exactly as for any other client (VIEWER or OPERATOR, HTTP Basic, API token or JWT). The page keeps the operator's
 * {@code Authorization} value in the tab's {@code sessionStorage} and sends it with each call; there is no cookie
 * and no server session, so no request can ride on ambient credentials (no CSRF). This chain matches only
 * {@code GET /console/**}, allows nothing else there, and adds a strict Content-Security-Policy (scripts, styles and
 * connections from this origin only, no framing), so injected markup could neither run script nor send data away.
 */
@Configuration(proxyBeanMethods = false)
public class ConsoleConfiguration {

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'none';"
            + " base-uri 'none'";

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    SecurityWebFilterChain consoleSecurity(ServerHttpSecurity http) {
        return http
                .securityMatcher(ServerWebExchangeMatchers.pathMatchers("/console", "/console/", "/console/**"))
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .headers(headers -> headers
                        .contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                        .referrerPolicy(referrer -> referrer.policy(ReferrerPolicy.NO_REFERRER)))
                .authorizeExchange(exchanges -> exchanges
                        .pathMatchers(HttpMethod.GET, "/console", "/console/", "/console/**").permitAll()
                        .anyExchange().denyAll())
                .build();
    }

    /** {@code /console} redirects to {@code /console/}, which is the console's page (relative links resolve there). */
    @Bean
    RouterFunction<ServerResponse> consoleRoutes() {
        Resource page = new ClassPathResource("static/console/index.html");
        return RouterFunctions
                .route(RequestPredicates.GET("/console"),
                        request -> ServerResponse.permanentRedirect(URI.create("/console/")).build())
                .andRoute(RequestPredicates.GET("/console/"),
                        request -> ServerResponse.ok().contentType(MediaType.TEXT_HTML).bodyValue(page));
    }
}
