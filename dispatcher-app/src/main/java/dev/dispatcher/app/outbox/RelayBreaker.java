package dev.dispatcher.app.outbox;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;

/**
 * The relay-wide circuit breaker on the broker's availability. It opens when at least half of the last 10 lanes (at
 * least 4) met the broker itself unavailable (a topic's failures count on that topic's breaker instead), or when
 * sends time out and the cluster does not answer a probe. It stays open until the relay's admin probe sees Kafka
 * answer (no timed half-open), then lets a few lanes through before closing again.
 */
public final class RelayBreaker {

    private RelayBreaker() {
    }

    public static CircuitBreaker create(String name) {
        return CircuitBreaker.of(name, config());
    }

    public static CircuitBreakerConfig config() {
        return halfOpenedByProbes(4, 2);
    }

    /**
     * A breaker that opens when at least half of its last 10 calls (at least {@code minimumCalls}) failed, and stays
     * open until its owner's probe half-opens it (no timed half-open), then lets {@code halfOpenCalls} calls through.
     */
    static CircuitBreakerConfig halfOpenedByProbes(int minimumCalls, int halfOpenCalls) {
        return CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(minimumCalls)
                .failureRateThreshold(50)
                .permittedNumberOfCallsInHalfOpenState(halfOpenCalls)
                .waitDurationInOpenState(Duration.ofDays(365))
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build();
    }
}
