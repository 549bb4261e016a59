package dev.dispatcher.app.api;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.Backlog;
import java.time.Duration;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Refuses ingest with {@code 429} while the outbox backlog is at {@code dispatcher.ingest.max-backlog}.
 *
 * <p>The backlog is checked in the background every {@link #REFRESH_EVERY}, and a request reads the last result:
 * it never waits for one. (A cache that counted on the first request after it expired held every request that
 * arrived meanwhile for the count, which grows with the backlog.) Each check first reads a cheap upper bound of
 * the backlog (two index descents) and counts the rows only when the bound reaches the limit: a count reads every
 * live row, about 190 ms at a 200,000-row backlog, and once a second that was an eighth of the database's
 * statement time during batch ingest. A failed check keeps the last result; before the first, ingest is allowed.
 * Thread-safe.
 */
final class BacklogGuard {

    static final Duration REFRESH_EVERY = Duration.ofSeconds(1);
    /** Long enough for the relay to drain a good part of a full backlog; short enough to resume soon. */
    static final int RETRY_AFTER_SECONDS = 2;

    private final Supplier<Mono<Long>> upperBound;
    private final Supplier<Mono<Backlog>> backlog;
    private final long maxBacklog;
    /** The last count, or a bound below the limit; written by the refresh pass only. */
    private volatile long lastTotal;
    /** A failed check keeps the last result. */
    private final PeriodicPass refreshing = new PeriodicPass(() -> current().doOnNext(t -> lastTotal = t).then(),
            e -> { });

    BacklogGuard(Supplier<Mono<Long>> upperBound, Supplier<Mono<Backlog>> backlog, long maxBacklog) {
        this.upperBound = upperBound;
        this.backlog = backlog;
        this.maxBacklog = maxBacklog;
    }

    void start() {
        refreshing.start(Duration.ZERO, REFRESH_EVERY);
    }

    /** The bound when it is below the limit (the count cannot reach it then), else the count. */
    private Mono<Long> current() {
        return Mono.defer(upperBound).flatMap(bound -> bound < maxBacklog ? Mono.just(bound)
                : Mono.defer(backlog).map(Backlog::total));
    }

    void stop() {
        refreshing.stop();
    }

    /** Completes empty when there is room, fails with a 429 problem otherwise. */
    Mono<Void> check() {
        long total = lastTotal;
        return total >= maxBacklog ? Mono.error(ApiProblem.backlogFull(total, maxBacklog, RETRY_AFTER_SECONDS))
                : Mono.empty();
    }
}
