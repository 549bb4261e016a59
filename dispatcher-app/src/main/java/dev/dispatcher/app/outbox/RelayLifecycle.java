package dev.dispatcher.app.outbox;

import dev.dispatcher.app.observe.RunSummary;
import dev.dispatcher.app.queue.Retention;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the relay with the application (after the web server is ready to take traffic) and drains it on
 * shutdown without blocking: Spring's stop callback runs when the relay's drain completes.
 */
final class RelayLifecycle implements SmartLifecycle {

    private final Relay relay;
    private final OutboxListener listener;
    private final PauseSwitch pauseSwitch;
    private final Retention retention;
    private final Duration retentionEvery;
    private final RunSummary summary;
    private volatile boolean running;

    RelayLifecycle(Relay relay, OutboxListener listener, PauseSwitch pauseSwitch, Retention retention,
            Duration retentionEvery, RunSummary summary) {
        this.summary = summary;
        this.relay = relay;
        this.listener = listener;
        this.pauseSwitch = pauseSwitch;
        this.retention = retention;
        this.retentionEvery = retentionEvery;
    }

    @Override
    public void start() {
        pauseSwitch.start();
        listener.start();
        relay.start();
        retention.start(retentionEvery);
        summary.start();
        running = true;
    }

    @Override
    public void stop() {
        throw new UnsupportedOperationException("stopped asynchronously through stop(Runnable)");
    }

    @Override
    public void stop(Runnable callback) {
        summary.stop();
        retention.stop();
        listener.stop();
        relay.stop().doFinally(s -> {
            pauseSwitch.stop();
            running = false;
            callback.run();
        }).subscribe();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        // Stop before the web server and the connection pool (lower phases stop later).
        return SmartLifecycle.DEFAULT_PHASE - 100;
    }
}
