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
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.authentication.AuthenticationServiceException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.web.server.WebFilterExchange;
import org.springframework.security.web.server.authentication.ServerAuthenticationEntryPointFailureHandler;
import org.springframework.security.web.server.authentication.ServerAuthenticationFailureHandler;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * Throttles wrong guesses, not users ({@code dispatcher.security.auth-failures.limit} per {@code ...window}): past
 * the limit, a request that carries credentials answers {@code 429} with {@code Retry-After} before any password is
 * hashed when its client address is throttled (failures of any credentials from that address), or when it carries
 * HTTP Basic credentials for a name that this address has failed (failures per address and name). A name's own
 * count, failures from every address, has a limit {@value #NAME_LIMIT_FACTOR} times higher, for a guesser spread
 * over many addresses, and even past it the name is not throttled from an address that signed in with it within
 * the last {@link #SIGNED_IN_FOR}: so a guesser who knows a user's name throttles itself, never the user on
 * another address.
 *
 * <p>Three parts of the API's filter chain: {@link #filter()}, placed before authentication, refuses throttled
 * requests; {@link #failureHandler}, the authentication filters' failure handler, counts each refused
 * authentication for its address, its address and name, and its name (and in
 * {@code dispatcher.auth.failures{reason}}) before the entry point answers {@code 401}; {@link #successRecorder()},
 * placed after authentication, notes a Basic sign-in for its address and name (and forgets that pair's failures).
 * A server-side failure ({@link AuthenticationServiceException}, such as a JWT key set that cannot be fetched) is
 * not the client's and is not counted.
 *
 * <p>The client address is the request's remote address: the socket's peer, or, with Boot's
 * {@code server.forward-headers-strategy} set behind a proxy, the client the proxy names. Behind a proxy without
 * it, every client shares the proxy's address and one client's failures throttle all. IPv6 clients are counted by
 * their /64 prefix, which one host usually holds whole. State is bounded: at most {@value #MAX_KEYS} windows per
 * table ({@link FailureWindows}, which a flood of new addresses or names cannot use to reset a guesser's count) and
 * as many recent sign-ins (the least recently used dropped first; only right passwords add to it). Thread-safe.
 */
final class LoginThrottle {

    /** Windows kept per table (addresses, address and name, names) and sign-ins kept: under 20 MB in all. */
    static final int MAX_KEYS = 20_000;
    /** How much higher a name's own limit (failures from every address) is than an address's. */
    static final int NAME_LIMIT_FACTOR = 10;
    /** How long a sign-in keeps its address clear of the name's own limit. */
    static final Duration SIGNED_IN_FOR = Duration.ofDays(1);

    private final FailureWindows addresses;
    private final FailureWindows addressNames;
    private final FailureWindows names;
    private final AuthFailureCounter failures;
    private final SecurityProblems problems;
    private final Clock clock;
    /** Per address and name, when it last signed in (millis); least recently used first; guarded by itself. */
    private final Map<String, Long> signedIn = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > MAX_KEYS;
        }
    };

    LoginThrottle(SecurityProperties.AuthFailures settings, AuthFailureCounter failures, SecurityProblems problems,
            Clock clock) {
        this.addresses = new FailureWindows(settings.limit(), settings.window(), MAX_KEYS, clock);
        this.addressNames = new FailureWindows(settings.limit(), settings.window(), MAX_KEYS, clock);
        this.names = new FailureWindows((int) Math.min(Integer.MAX_VALUE, (long) settings.limit() * NAME_LIMIT_FACTOR),
                settings.window(), MAX_KEYS, clock);
        this.failures = failures;
        this.problems = problems;
        this.clock = clock;
    }

    /** Answers {@code 429} to a request with credentials that the address, or the address and name, may not try. */
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

    /** Notes each HTTP Basic sign-in that authentication accepted ({@link #signedIn}); reads no body. */
    WebFilter successRecorder() {
        return (exchange, chain) -> {
            ServerHttpRequest request = exchange.getRequest();
            String name = basicUserName(request.getHeaders().getFirst(HttpHeaders.AUTHORIZATION));
            if (name == null) {
                return chain.filter(exchange);
            }
            return ReactiveSecurityContextHolder.getContext()
                    .doOnNext(context -> {
                        Authentication authentication = context.getAuthentication();
                        if (authentication instanceof UsernamePasswordAuthenticationToken
                                && authentication.isAuthenticated() && name.equals(authentication.getName())) {
                            signedIn(clientKey(request.getRemoteAddress()), name);
                        }
                    })
                    .then(chain.filter(exchange));
        };
    }

    /**
     * How long a request from {@code address} with credentials for {@code name} (null for none) stays throttled:
     * the longest of the address's, the address and name's, and the name's own wait (none from an address that
     * signed in with the name within {@link #SIGNED_IN_FOR}); zero when none applies.
     */
    Duration blockedFor(String address, String name) {
        Duration wait = addresses.blockedFor(address);
        if (name == null) {
            return wait;
        }
        wait = longer(wait, addressNames.blockedFor(pair(address, name)));
        Duration byName = names.blockedFor(name);
        return byName.isZero() || signedInRecently(address, name) ? wait : longer(wait, byName);
    }

    void failed(String address, String name, Reason reason) {
        failures.count(reason);
        addresses.fail(address);
        if (name != null) {
            addressNames.fail(pair(address, name));
            names.fail(name);
        }
    }

    /** A right password for {@code name} from {@code address}: that pair's failures are forgotten. */
    void signedIn(String address, String name) {
        addressNames.clear(pair(address, name));
        synchronized (signedIn) {
            signedIn.put(pair(address, name), clock.millis());
        }
    }

    private boolean signedInRecently(String address, String name) {
        Long at;
        synchronized (signedIn) {
            at = signedIn.get(pair(address, name));
        }
        return at != null && clock.millis() - at < SIGNED_IN_FOR.toMillis();
    }

    /** The key of an address and a name; the name cut as {@link FailureWindows} cuts keys. */
    private static String pair(String address, String name) {
        String cut = name.length() <= FailureWindows.MAX_KEY_LENGTH ? name
                : name.substring(0, FailureWindows.MAX_KEY_LENGTH);
        return address + " " + cut;
    }

    private static Duration longer(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
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
