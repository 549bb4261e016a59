package dev.dispatcher.app.api;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.observe.AuthFailureCounter;
import dev.dispatcher.app.observe.AuthFailureCounter.Reason;
import dev.dispatcher.app.observe.MessageTracing;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtReactiveAuthenticationManager;
import org.springframework.security.oauth2.server.resource.authentication.ReactiveJwtAuthenticationConverterAdapter;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Who may call what. Stateless (no session, no cookie: every request carries its credentials).
 *
 * <ul>
 *   <li>HTTP Basic: {@code dispatcher.security.users}, passwords in Spring Security's {@code {id}} form, checked
 *       off the event loop at the same cost for known and unknown names ({@link BasicUserAuthentication}; bcrypt
 *       costs milliseconds of CPU per request: give high-rate producers tokens).
 *   <li>Bearer: a value that looks like a JWT (three dot-separated parts) goes to the JWT decoder when
 *       {@code spring.security.oauth2.resourceserver.jwt.*} configures one (scope {@code dispatcher:produce} is
 *       PRODUCER, {@code dispatcher:view} VIEWER, {@code dispatcher:operate} OPERATOR); any other value is an API
 *       token ({@link ApiTokenAuthenticationManager}).
 *   <li>Failed authentications are throttled per client address, per address and user name, and per name at a
 *       higher limit that spares an address the name recently signed in from ({@link LoginThrottle}).
 *   <li>{@code /v1}: as {@link ApiAccess} says ({@code POST /v1/messages} and {@code /v1/messages/batch} need
 *       PRODUCER and a token's topics, {@link dev.dispatcher.app.ingest.TopicGrant}; {@code GET /v1/me} any
 *       authenticated caller; other {@code GET}s VIEWER or OPERATOR; everything else OPERATOR).
 *       {@code /actuator/prometheus} and {@code /actuator/info} need VIEWER or OPERATOR; the OpenAPI document
 *       ({@code /v3/api-docs}) any authenticated caller. Health is public (its details are shown to OPERATOR only,
 *       {@code management.endpoint.health.roles}); Prometheus too when {@code dispatcher.security.public-prometheus}
 *       is true.
 *   <li>Cross-site request forgery: mutations under {@code /v1} must declare a JSON body ({@link JsonOnlyMutations})
 *       and browsers never get a Basic challenge ({@link SecurityProblems#fromBrowser}).
 * </ul>
 * A path not written in its canonical form is refused before any of this ({@link CanonicalPaths}). 400, 401, 403,
 * 415 and 429 are problem details ({@link SecurityProblems}).
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFluxSecurity
class ApiSecurityConfiguration {

    /** The authority a JWT scope grants ({@code dispatcher:view} is {@code ROLE_VIEWER}). */
    private static final Map<String, String> SCOPE_ROLES = ApiAccess.SCOPES.entrySet().stream()
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getValue, role -> "ROLE_" + role.getKey()));
    private static final String VIEWER = "VIEWER";
    private static final String OPERATOR = "OPERATOR";
    /** The OpenAPI document ({@link ApiDocsConfiguration}), as JSON and as YAML. */
    private static final String[] API_DOCS = {"/v3/api-docs", "/v3/api-docs.yaml"};

    /**
     * No Spring Security observations. Turning them off by name
     * ({@code management.observations.enable.spring.security}) only makes each one a no-op: the filter chain stays
     * wrapped, and every request still created and scoped a no-op observation around each of its filters (1.4% of
     * the service's CPU samples under single-message ingest load). With these settings Spring Security does not
     * wrap the chain at all.
     */
    @Bean
    static SecurityObservationSettings dispatcherSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    ReactiveUserDetailsService dispatcherUsers(DispatcherProperties properties) {
        Map<String, UserDetails> users = properties.security().users().stream()
                .map(u -> User.withUsername(u.name()).password(u.password())
                        .roles(u.roles().toArray(String[]::new)).build())
                .collect(Collectors.toUnmodifiableMap(UserDetails::getUsername, Function.identity()));
        // a copy per lookup: the authentication manager erases the credentials of what it is given
        return name -> Mono.justOrEmpty(users.get(name)).map(u -> User.withUserDetails(u).build());
    }

    /** Refuses a path that routing would read otherwise than the rules that look at it ({@link CanonicalPaths}). */
    @Bean
    CanonicalPaths canonicalPaths() {
        return new CanonicalPaths(new SecurityProblems());
    }

    /** Slows a client that floods the public health endpoints ({@link HealthCallLimit}). */
    @Bean
    HealthCallLimit healthCallLimit() {
        return new HealthCallLimit(new SecurityProblems());
    }

    /** The public health answers replayed around the framework, behind the same limit ({@link HealthFastPath}). */
    @Bean
    HealthFastPath healthFastPath(HealthCallLimit healthCallLimit, MessageTracing tracing) {
        return new HealthFastPath(true, healthCallLimit, tracing);
    }

    @Bean
    AuthFailureCounter authFailureCounter(MeterRegistry registry) {
        return new AuthFailureCounter(registry);
    }

    @Bean
    SecurityWebFilterChain dispatcherSecurity(ServerHttpSecurity http, DispatcherProperties properties,
            ReactiveUserDetailsService dispatcherUsers, ObjectProvider<ReactiveJwtDecoder> jwtDecoder,
            AuthFailureCounter authFailures) {
        SecurityProblems problems = new SecurityProblems();
        LoginThrottle throttle = new LoginThrottle(properties.security().authFailures(), authFailures, problems,
                Clock.systemUTC());
        ReactiveAuthenticationManager basic = new BasicUserAuthentication(dispatcherUsers,
                properties.security().users().stream().map(SecurityProperties.User::password).toList(),
                PasswordEncoderFactories.createDelegatingPasswordEncoder(), Schedulers.boundedElastic());
        ReactiveAuthenticationManager bearer = bearerManager(
                new ApiTokenAuthenticationManager(properties.security().tokens()), jwtDecoder.getIfAvailable());
        boolean publicPrometheus = properties.security().publicPrometheus();
        return http
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .addFilterBefore(throttle.filter(), SecurityWebFiltersOrder.HTTP_BASIC)
                .addFilterAfter(throttle.successRecorder(), SecurityWebFiltersOrder.AUTHENTICATION)
                .addFilterAfter(new JsonOnlyMutations(problems), SecurityWebFiltersOrder.AUTHORIZATION)
                .httpBasic(basicSpec -> basicSpec.authenticationManager(basic).authenticationEntryPoint(problems)
                        .authenticationFailureHandler(throttle.failureHandler(problems, Reason.BAD_CREDENTIALS)))
                .oauth2ResourceServer(resource -> resource
                        .authenticationManagerResolver(exchange -> Mono.just(bearer))
                        .authenticationEntryPoint(problems)
                        .authenticationFailureHandler(throttle.failureHandler(problems, Reason.BAD_TOKEN))
                        .accessDeniedHandler(problems))
                .exceptionHandling(handling -> handling.authenticationEntryPoint(problems).accessDeniedHandler(problems))
                .authorizeExchange(exchanges -> {
                    exchanges.pathMatchers("/actuator/health", "/actuator/health/**").permitAll();
                    if (publicPrometheus) {
                        exchanges.pathMatchers("/actuator/prometheus").permitAll();
                    }
                    exchanges.pathMatchers(HttpMethod.GET, "/actuator/prometheus", "/actuator/info")
                            .hasAnyRole(VIEWER, OPERATOR);
                    // the API's description, for whoever may call any of it (a producer generating its client)
                    exchanges.pathMatchers(HttpMethod.GET, API_DOCS).authenticated();
                    for (ApiAccess access : ApiAccess.values()) {
                        access.authorize(exchanges); // the /v1 rules; the last is anyExchange: OPERATOR
                    }
                })
                .build();
    }

    private static ReactiveAuthenticationManager bearerManager(ReactiveAuthenticationManager tokens,
            ReactiveJwtDecoder decoder) {
        if (decoder == null) {
            return tokens;
        }
        JwtAuthenticationConverter converter = new JwtAuthenticationConverter();
        converter.setJwtGrantedAuthoritiesConverter(ApiSecurityConfiguration::scopeRoles);
        JwtReactiveAuthenticationManager jwt = new JwtReactiveAuthenticationManager(decoder);
        jwt.setJwtAuthenticationConverter(new ReactiveJwtAuthenticationConverterAdapter(converter));
        return authentication -> looksLikeJwt(((BearerTokenAuthenticationToken) authentication).getToken())
                ? jwt.authenticate(authentication)
                : tokens.authenticate(authentication);
    }

    static boolean looksLikeJwt(String token) {
        int first = token.indexOf('.');
        int second = first < 0 ? -1 : token.indexOf('.', first + 1);
        return first > 0 && second > first + 1 && token.indexOf('.', second + 1) < 0 && second < token.length() - 1;
    }

    /** Dispatcher's roles from the {@code scope} (space-separated) or {@code scp} (list) claim. */
    static Collection<GrantedAuthority> scopeRoles(Jwt jwt) {
        List<String> scopes = new ArrayList<>();
        Object scope = jwt.getClaims().get("scope");
        if (scope instanceof String text) {
            scopes.addAll(List.of(text.trim().split("\\s+")));
        } else if (scope instanceof Collection<?> list) {
            list.forEach(s -> scopes.add(String.valueOf(s)));
        }
        Object scp = jwt.getClaims().get("scp");
        if (scp instanceof Collection<?> list) {
            list.forEach(s -> scopes.add(String.valueOf(s)));
        } else if (scp instanceof String text) {
            scopes.addAll(List.of(text.trim().split("\\s+")));
        }
        return scopes.stream().map(SCOPE_ROLES::get).filter(java.util.Objects::nonNull).distinct()
                .map(role -> (GrantedAuthority) new SimpleGrantedAuthority(role)).toList();
    }
}
