package dev.dispatcher.app.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Wake-ups for a leased-queue worker's claim loop: "there may be new work" (a notification, a finished batch, a
 * reconnect). Each wake-up bumps a generation; a waiter names the generation it has seen and is released by any
 * later one, or by its timeout. The latest generation is replayed to each new waiter, so a wake-up that lands
 * between a claim and the wait that follows it is never lost.
 *
 * <p>Thread-safe; {@link #wake()} is cheap and callable from any thread. Concurrent emissions are retried for a
 * moment instead of dropped (a dropped last wake-up would leave the loop asleep until its poll interval).
 */
public final class WakeSignal {

    private static final Sinks.EmitFailureHandler RETRY_CONCURRENT =
            Sinks.EmitFailureHandler.busyLooping(Duration.ofMillis(50));

    private final Sinks.Many<Long> wakeups = Sinks.many().replay().latest();
    private final AtomicLong generation = new AtomicLong();

    public WakeSignal() {
        wakeups.emitNext(0L, RETRY_CONCURRENT);
    }

    /** Signals possible new work. */
    public void wake() {
        long next = generation.incrementAndGet();
        wakeups.emitNext(next, RETRY_CONCURRENT);
    }

    /** The current generation; read it before claiming, then wait with {@link #awaitAfter}. */
    public long generation() {
        return generation.get();
    }

    /** Completes at the first wake-up after generation {@code seen}, or after {@code timeout}. */
    public Mono<Void> awaitAfter(long seen, Duration timeout) {
        return wakeups.asFlux()
                .filter(g -> g > seen)
                .next()
                .timeout(timeout, Mono.just(seen))
                .then();
    }
}
