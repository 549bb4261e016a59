package dev.dispatcher.app.observe;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A background pass run on a fixed interval (polls, summaries, retention): one pass at a time (a tick that comes
 * while a pass still runs is dropped, never queued), a failed pass is reported to its handler and the next tick
 * runs again. Restartable: {@link #stop()} then {@link #start} resumes it. Thread-safe.
 */
public final class PeriodicPass {

    private final Supplier<Mono<Void>> pass;
    private final Consumer<Throwable> onFailure;
    private Disposable running;

    /** {@code pass} is subscribed on each tick; {@code onFailure} (cheap, non-blocking) sees each failed pass. */
    public PeriodicPass(Supplier<Mono<Void>> pass, Consumer<Throwable> onFailure) {
        this.pass = pass;
        this.onFailure = onFailure;
    }

    /** Runs the first pass after {@code first}, then one every {@code every}; no-op while running. */
    public synchronized void start(Duration first, Duration every) {
        if (running == null) {
            running = Flux.interval(first, every).onBackpressureDrop()
                    .concatMap(tick -> Mono.defer(pass).onErrorResume(e -> {
                        onFailure.accept(e);
                        return Mono.empty();
                    }))
                    .subscribe();
        }
    }

    /** Stops the ticks; a pass in flight is cancelled. */
    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }
}
