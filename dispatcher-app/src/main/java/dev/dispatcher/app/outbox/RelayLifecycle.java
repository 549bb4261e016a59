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
    private final DemoProducer demo;
    private volatile boolean running;

    /** {@code demo} may be null (demo producer off). */
    RelayLifecycle(Relay relay, OutboxListener listener, PauseSwitch pauseSwitch, Retention retention,
            Duration retentionEvery, RunSummary summary, DemoProducer demo) {
        this.summary = summary;
        this.demo = demo;
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
        if (demo != null) {
            demo.start();
        }
        running = true;
    }

    @Override
    public void stop() {
        throw new UnsupportedOperationException("stopped asynchronously through stop(Runnable)");
    }

    @Override
    public void stop(Runnable callback) {
        if (demo != null) {
            demo.stop();
        }
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
