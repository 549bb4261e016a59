package dev.dispatcher.app.api;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Bounds how often one client address may call the public health endpoints ({@code /actuator/health} and its
 * groups): {@value #CALLS_PER_SECOND} answers a second per address after a burst of {@value #BURST}; a call beyond that
 * waits (on a timer, holding no thread) for its turn if that comes within {@link #WAIT}, and otherwise answers
 * {@code 429} with {@code Retry-After} after that same wait. Probes from load balancers and orchestrators call a few
 * times a minute from their own addresses and never wait; a client flooding the endpoint gets {@value
 * #CALLS_PER_SECOND} answers a second, and a flood spread over many addresses that many per address, so it cannot take
 * the CPU that ingest and the relay need (the checks themselves are
 * cached: {@code config.CachedHealthIndicator}). Runs before the security chain.
 *
 * <p>The pacing is the generic cell rate algorithm (one theoretical arrival time per address), kept by hand:
 * Resilience4j's {@code AtomicRateLimiter} parks its thread to back off under contention, which must never happen
 * on an event loop (BlockHound reported it in {@code HealthIT}). At most {@value #MAX_CLIENTS} addresses are kept,
 * the least recently seen dropped first ({@link LoginThrottle#clientKey}: behind a proxy, Boot's forwarded-headers
 * strategy decides the address). Thread-safe; each decision holds one short monitor and never blocks.
 */
public final class HealthCallLimit implements WebFilter, Ordered {

    /** Health answers a second one client address gets once its burst is spent. */
    public static final int CALLS_PER_SECOND = 1;
    /** Health answers one client address may take at once (probes of several groups, several probers behind one). */
    public static final int BURST = 10;
    /** How long a call beyond that may wait for its turn before it is refused. */
    public static final Duration WAIT = Duration.ofSeconds(1);
    static final int MAX_CLIENTS = 10_000;

    private static final long INTERVAL_NANOS = Duration.ofSeconds(1).toNanos() / CALLS_PER_SECOND;
    private static final long BURST_NANOS = INTERVAL_NANOS * (BURST - 1);
    /** The answer of {@link #turn} for a call that is refused. */
    static final long REFUSED = -1;

    private final SecurityProblems problems;
    private final LongSupplier nanoTime;
    /** Per address, the theoretical arrival time of its next call (nanos on {@link #nanoTime}'s scale). */
    private final Map<String, long[]> arrivals = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > MAX_CLIENTS;
        }
    };

    HealthCallLimit(SecurityProblems problems) {
        this(problems, System::nanoTime);
    }

    HealthCallLimit(SecurityProblems problems, LongSupplier nanoTime) {
        this.problems = problems;
        this.nanoTime = nanoTime;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (!isHealth(exchange.getRequest().getPath().pathWithinApplication().value())) {
            return chain.filter(exchange);
        }
        String client = LoginThrottle.clientKey(exchange.getRequest().getRemoteAddress());
        return Mono.defer(() -> {
            long wait = turn(client);
            if (wait == 0) {
                return chain.filter(exchange);
            }
            if (wait > 0) {
                return Mono.delay(Duration.ofNanos(wait)).then(chain.filter(exchange));
            }
            // the refusal waits too: a flooding connection gets an answer a second, not refusals as fast as it asks
            return Mono.delay(WAIT).then(problems.tooManyHealthCalls(exchange));
        });
    }

    /** Before everything else, the security chain included, but after {@link CanonicalPaths}. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1;
    }

    static boolean isHealth(String path) {
        return path.equals("/actuator/health") || path.startsWith("/actuator/health/");
    }

    /**
     * Takes {@code client}'s next turn: how many nanoseconds its call waits (0: at once), or {@link #REFUSED} when
     * its turn is more than {@link #WAIT} away (a refused call takes no turn).
     */
    synchronized long turn(String client) {
        long now = nanoTime.getAsLong();
        long[] arrival = arrivals.computeIfAbsent(client, c -> new long[] {now});
        long wait = waitNanos(arrival[0], now);
        if (wait == REFUSED) {
            return REFUSED;
        }
        arrival[0] = Math.max(arrival[0], now) + INTERVAL_NANOS;
        return wait;
    }

    /** Whether {@code client}'s call now would be {@link #REFUSED}, without taking a turn. */
    synchronized boolean refuses(String client) {
        long[] arrival = arrivals.get(client);
        return arrival != null && waitNanos(arrival[0], nanoTime.getAsLong()) == REFUSED;
    }

    /** A call's wait at {@code now} behind the theoretical arrival {@code arrival}, or {@link #REFUSED}. */
    private static long waitNanos(long arrival, long now) {
        long wait = Math.max(0, Math.max(arrival, now) - BURST_NANOS - now);
        return wait > WAIT.toNanos() ? REFUSED : wait;
    }

    synchronized int clients() {
        return arrivals.size();
    }
}
