package dev.dispatcher.app.config;

import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/**
 * A health component whose check runs at most once per {@code timeToLive}: every call within that time after a check
 * answered gets its result, and calls that arrive while a check runs wait for that one check instead of starting
 * their own. {@code /actuator/health} is public, so without this a flood of health calls was a flood of
 * {@code SELECT 1} on the shared connection pool and of {@code describeCluster} requests, taking connections from
 * ingest and the relay.
 *
 * <p>The delegate must signal its state as a value (a {@code DOWN} health), never as an error: an error is not
 * cached and every caller would repeat the check. Closing closes a delegate that holds resources (the Kafka check's
 * admin client). Thread-safe; non-blocking ({@link Mono#cache(Duration)}).
 */
final class CachedHealthIndicator implements ReactiveHealthIndicator, AutoCloseable {

    private final ReactiveHealthIndicator delegate;
    private final Mono<Health> cached;

    CachedHealthIndicator(ReactiveHealthIndicator delegate, Duration timeToLive) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.cached = Mono.defer(delegate::health).cache(timeToLive);
    }

    @Override
    public Mono<Health> health() {
        return cached;
    }

    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable resources) {
            resources.close();
        }
    }
}
