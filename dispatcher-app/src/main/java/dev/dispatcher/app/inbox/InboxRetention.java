package dev.dispatcher.app.inbox;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Deletes completed inbox rows older than the deduplication window ({@code dispatcher.retention.inbox-completed})
 * in bounded batches of {@value #BATCH}, repeating while a batch comes back full. A record redelivered after its row
 * is gone is stored and handled again, so the window must outlast any redelivery the consumers can see. Dead-lettered
 * inbox rows are kept for operators.
 */
public final class InboxRetention {

    private static final Logger log = LoggerFactory.getLogger(InboxRetention.class);
    static final int BATCH = 1000;

    private final InboxStore store;
    private final Duration window;
    private volatile Disposable running;

    public InboxRetention(InboxStore store, Duration window) {
        this.store = Objects.requireNonNull(store, "store");
        this.window = Objects.requireNonNull(window, "window");
    }

    /** One full pass; emits the number of rows deleted. */
    public Mono<Long> purge() {
        return Mono.defer(() -> store.purgeCompleted(window, BATCH))
                .expand(n -> n >= BATCH ? Mono.defer(() -> store.purgeCompleted(window, BATCH)) : Mono.empty())
                .reduce(0L, Long::sum)
                .doOnNext(n -> {
                    if (n > 0) {
                        log.info("inbox retention deleted {} completed rows", n);
                    }
                });
    }

    /** Runs a pass every {@code every}, starting after one interval. */
    public synchronized void start(Duration every) {
        if (running == null) {
            running = Flux.interval(every, every).onBackpressureDrop()
                    .concatMap(t -> purge().onErrorResume(e -> {
                        log.warn("inbox retention pass failed: {}", e.toString());
                        return Mono.empty();
                    }))
                    .subscribe();
        }
    }

    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }
}
