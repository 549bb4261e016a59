package dev.dispatcher.app.api;

import dev.dispatcher.app.config.SecurityProperties;
import dev.dispatcher.app.observe.AuthFailureCounter;
import dev.dispatcher.app.observe.AuthFailureCounter.Reason;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.server.WebFilterExchange;
import org.springframework.security.web.server.authentication.ServerAuthenticationEntryPointFailureHandler;
import org.springframework.security.web.server.authentication.ServerAuthenticationFailureHandler;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * Throttles failed authentications per client address and per user name
 * ({@code dispatcher.security.auth-failures.limit} per {@code ...window}): past the limit, a request that carries
 * credentials from that address, or HTTP Basic credentials for that name, answers {@code 429} with
 * {@code Retry-After} before any password is hashed, whoever sends it; other clients and names are unaffected.
 *
 * <p>Two parts of the API's filter chain: {@link #filter()}, placed before authentication, refuses throttled
 * requests; {@link #failureHandler}, the authentication filters' failure handler, counts each refused
 * authentication for its address and name (and in {@code dispatcher.auth.failures{reason}}) before the entry
 * point answers {@code 401}. A server-side failure ({@link AuthenticationServiceException}, such as a JWT key set
 * that cannot be fetched) is not the client's and is not counted.
 *
 * <p>The client address is the request's remote address: the socket's peer, or, with Boot's
 * {@code server.forward-headers-strategy} set behind a proxy, the client the proxy names. Behind a proxy without
 * it, every client shares the proxy's address and one client's failures throttle all. IPv6 clients are counted by
 * their /64 prefix, which one host usually holds whole. State is bounded ({@link FailureWindows}, at most
 * {@value #MAX_KEYS} addresses and as many names). Thread-safe.
 */
final class LoginThrottle {

    /** Windows kept per kind of key (addresses, names): about 200 bytes each, so under 10 MB in all. */
    static final int MAX_KEYS = 20_000;

    private final FailureWindows addresses;
    private final FailureWindows names;
    private final AuthFailureCounter failures;
    private final SecurityProblems problems;

    LoginThrottle(SecurityProperties.AuthFailures settings, AuthFailureCounter failures, SecurityProblems problems,
            Clock clock) {
        this.addresses = new FailureWindows(settings.limit(), settings.window(), MAX_KEYS, clock);
        this.names = new FailureWindows(settings.limit(), settings.window(), MAX_KEYS, clock);
        this.failures = failures;
        this.problems = problems;
    }

    /** Answers {@code 429} to a request with credentials from a throttled address or for a throttled name. */
    WebFilter filter() {
        return (exchange, chain) -> {
            ServerHttpRequest request = exchange.getRequest();
            String authorization = request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
            if (authorization == null) {
                return chain.filter(exchange);
            }
            Duration wait = blockedFor(clientKey(request.getRemoteAddress()), basicUserName(authorization));
            if (wait.isZero()) {
                return chain.filter(exchange);
            }
            failures.count(Reason.THROTTLED);
            return problems.tooManyFailures(exchange, wait);
        };
    }

    /**
     * Counts a refused authentication, then lets {@code entryPoint}'s answer through; {@code fallback} is the reason
     * of a failure that does not say its own ({@link LoginFailure} does).
     */
    ServerAuthenticationFailureHandler failureHandler(SecurityProblems entryPoint, Reason fallback) {
        ServerAuthenticationEntryPointFailureHandler answer =
                new ServerAuthenticationEntryPointFailureHandler(entryPoint);
        return (WebFilterExchange exchange, AuthenticationException refused) -> {
            if (!(refused instanceof AuthenticationServiceException)) {
                ServerHttpRequest request = exchange.getExchange().getRequest();
                failed(clientKey(request.getRemoteAddress()),
                        basicUserName(request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION)),
                        refused instanceof LoginFailure login ? login.reason() : fallback);
            }
            return answer.onAuthenticationFailure(exchange, refused);
        };
    }

    /** How long the address or the name (null for none) stays throttled; zero when neither is. */
    Duration blockedFor(String address, String name) {
        Duration byAddress = addresses.blockedFor(address);
        Duration byName = name == null ? Duration.ZERO : names.blockedFor(name);
        return byAddress.compareTo(byName) >= 0 ? byAddress : byName;
    }

    void failed(String address, String name, Reason reason) {
        failures.count(reason);
        addresses.fail(address);
        if (name != null) {
            names.fail(name);
        }
    }

    /** The key a client address is counted under: the address itself, or an IPv6 address's /64 prefix. */
    static String clientKey(InetSocketAddress remote) {
        if (remote == null) {
            return "unknown";
        }
        InetAddress address = remote.getAddress();
        if (address == null) {
            return remote.getHostString();
        }
        if (address instanceof Inet6Address) {
            return HexFormat.of().formatHex(address.getAddress(), 0, 8) + "::/64";
        }
        return address.getHostAddress();
    }

    /** The user name of an HTTP Basic {@code Authorization} value, or null for anything else. */
    static String basicUserName(String authorization) {
        if (authorization == null || authorization.length() < 6
                || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        try {
            String decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                    StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? null : decoded.substring(0, colon);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }
}
