package dev.dispatcher.app.outbox;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;

/**
 * The relay's circuit breaker on Kafka availability. It opens when at least half of the last 10 lanes (at least
 * 4) failed with broker-availability errors. It stays open until the relay's admin probe sees Kafka answer (no
 * timed half-open), then lets a few lanes through before closing again.
 */
public final class RelayBreaker {

    private RelayBreaker() {
    }

    public static CircuitBreaker create(String name) {
        return CircuitBreaker.of(name, config());
    }

    public static CircuitBreakerConfig config() {
        return CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(4)
                .failureRateThreshold(50)
                .permittedNumberOfCallsInHalfOpenState(2)
                .waitDurationInOpenState(Duration.ofDays(365))
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build();
    }
}
