package dev.dispatcher.app.queue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Wake-ups for a leased-queue worker's claim loop: "there may be new work" (a notification, a finished batch, a
 * reconnect). Each wake-up bumps a generation; a waiter names the generation it has seen and is released by any
 * later one, or by its timeout, so a wake-up that lands between a claim and the wait that follows it is never lost.
 *
 * <p>Thread-safe and wait-free: {@link #wake()} swaps in a fresh one-shot sink and completes the one it took out,
 * so every sink is completed by exactly one thread and no emission can fail or spin. (A shared many-sink refused
 * concurrent emissions; retrying them spun the emitting event-loop thread, and on a saturated machine the retry ran
 * out and dropped the wake-up, leaving the loop asleep until its poll interval.)
 */
public final class WakeSignal {

    private final AtomicLong generation = new AtomicLong();
    private final AtomicReference<Sinks.One<Void>> next = new AtomicReference<>(Sinks.one());

    /** Signals possible new work. */
    public void wake() {
        generation.incrementAndGet();
        next.getAndSet(Sinks.one()).tryEmitEmpty();
    }

    /** The current generation; read it before claiming, then wait with {@link #awaitAfter}. */
    public long generation() {
        return generation.get();
    }

    /** Completes at the first wake-up after generation {@code seen}, or after {@code timeout}. */
    public Mono<Void> awaitAfter(long seen, Duration timeout) {
        return awaitAfter(seen, timeout, Schedulers.parallel());
    }

    /**
     * Completes at the first wake-up after generation {@code seen}, or after {@code timeout} measured on
     * {@code timer}. A wake-up completes the returned Mono on the thread that called {@link #wake()}: callers that
     * continue with work of their own hop to their scheduler first.
     */
    public Mono<Void> awaitAfter(long seen, Duration timeout, Scheduler timer) {
        return Mono.defer(() -> {
            // Take the sink before reading the generation: wake() bumps the generation before it swaps the sink,
            // so either the bump is seen here or the sink taken here is the one that wake-up completes.
            Sinks.One<Void> pending = next.get();
            if (generation.get() > seen) {
                return Mono.empty();
            }
            return pending.asMono().timeout(timeout, Mono.empty(), timer);
        });
    }
}
