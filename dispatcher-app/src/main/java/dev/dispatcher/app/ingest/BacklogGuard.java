package dev.dispatcher.app.ingest;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.Backlog;
import java.time.Duration;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Refuses ingest ({@link IngestProblem.BacklogFull}) while the outbox backlog is at
 * {@code dispatcher.ingest.max-backlog}.
 *
 * <p>The backlog is checked in the background every {@link Ingest#BACKLOG_CHECKED_EVERY}, and a request reads the
 * last result: it never waits for one. Each check first reads a cheap upper bound of the backlog (two index
 * descents) and counts the live rows only when the bound reaches the limit (a count reads every live row). A
 * failed check keeps the last result; before the first, ingest is allowed. Thread-safe.
 */
final class BacklogGuard {

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
        refreshing.start(Duration.ZERO, Ingest.BACKLOG_CHECKED_EVERY);
    }

    /** The bound when it is below the limit (the count cannot reach it then), else the count. */
    private Mono<Long> current() {
        return Mono.defer(upperBound).flatMap(bound -> bound < maxBacklog ? Mono.just(bound)
                : Mono.defer(backlog).map(Backlog::total));
    }

    void stop() {
        refreshing.stop();
    }

    /** Completes empty when there is room, fails with {@link IngestProblem.BacklogFull} otherwise. */
    Mono<Void> check() {
        long total = lastTotal;
        return total >= maxBacklog ? Mono.error(new IngestProblem.BacklogFull(total, maxBacklog)) : Mono.empty();
    }
}
