package dev.dispatcher.app.api;

import dev.dispatcher.app.store.Backlog;
import java.time.Duration;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Refuses ingest with {@code 429} while the outbox backlog is at {@code dispatcher.ingest.max-backlog}. The
 * backlog count is cached for {@link #CACHE_FOR}, so ingest costs one count per second, not one per request; a
 * failed count is not cached. Thread-safe.
 */
final class BacklogGuard {

    static final Duration CACHE_FOR = Duration.ofSeconds(1);
    /** Long enough for the relay to drain a good part of a full backlog; short enough to resume soon. */
    static final int RETRY_AFTER_SECONDS = 2;

    private final long maxBacklog;
    private final Mono<Long> cachedBacklog;

    BacklogGuard(Supplier<Mono<Backlog>> backlog, long maxBacklog) {
        this.maxBacklog = maxBacklog;
        this.cachedBacklog = Mono.defer(backlog).map(Backlog::total)
                .cache(value -> CACHE_FOR, error -> Duration.ZERO, () -> Duration.ZERO);
    }

    /** Completes empty when there is room, fails with a 429 problem otherwise. */
    Mono<Void> check() {
        return cachedBacklog.flatMap(total -> total >= maxBacklog
                ? Mono.error(ApiProblem.backlogFull(total, maxBacklog, RETRY_AFTER_SECONDS))
                : Mono.empty());
    }
}
