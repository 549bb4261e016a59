package dev.dispatcher.app.outbox;

import dev.dispatcher.app.source.PerSource;
import java.util.Collection;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;

/**
 * Starts every source's relay with the application (after the web server is ready to take traffic; a source whose
 * tables are not migrated yet starts once they are) and drains them all on shutdown without blocking: Spring's stop
 * callback runs when every relay's drain completed.
 */
final class RelayLifecycle implements SmartLifecycle {

    private final Collection<SourceRelay> relays;
    private volatile boolean running;

    RelayLifecycle(PerSource<SourceRelay> relays) {
        this.relays = relays.all();
    }

    @Override
    public void start() {
        relays.forEach(SourceRelay::start);
        running = true;
    }

    @Override
    public void stop() {
        throw new UnsupportedOperationException("stopped asynchronously through stop(Runnable)");
    }

    @Override
    public void stop(Runnable callback) {
        Flux.fromIterable(relays).flatMap(SourceRelay::stop).then().doFinally(s -> {
            running = false;
            callback.run();
        }).subscribe();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Releases the relays' own schedulers, once stopped for good (the bean's destruction). */
    void close() {
        relays.forEach(SourceRelay::close);
    }

    @Override
    public int getPhase() {
        // Stop before the web server and the connection pool (lower phases stop later).
        return SmartLifecycle.DEFAULT_PHASE - 100;
    }
}
