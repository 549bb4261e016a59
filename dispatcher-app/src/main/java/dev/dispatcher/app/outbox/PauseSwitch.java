package dev.dispatcher.app.outbox;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.ControlStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The cluster-wide relay pause switch, read from {@code dispatcher_control} every poll interval, so every instance
 * honours a pause within one interval. Keeps the last value it read when the database is unreachable. Tells its
 * listener (the relay's loop) whenever the value it read changed, so a paused relay resumes at once.
 */
public final class PauseSwitch implements BooleanSupplier {

    private static final Logger log = LoggerFactory.getLogger(PauseSwitch.class);

    private final ControlStore control;
    private final Duration interval;
    /** Written by the polling subscription and by {@link #refresh()}. */
    private final AtomicBoolean paused = new AtomicBoolean();
    private volatile Runnable onChange = () -> { };
    /** A failed read keeps the last value. */
    private final PeriodicPass polling = new PeriodicPass(() -> refresh().then(), e -> { });

    public PauseSwitch(ControlStore control, Duration interval) {
        this.control = control;
        this.interval = interval;
    }

    @Override
    public boolean getAsBoolean() {
        return paused.get();
    }

    /** Runs {@code listener} (cheap, non-blocking) after every change of the value read. */
    public void onChange(Runnable listener) {
        this.onChange = listener;
    }

    /** Reads the switch once now. */
    public Mono<Boolean> refresh() {
        return control.relayPaused()
                .doOnNext(value -> {
                    if (paused.getAndSet(value) != value) {
                        log.info("relay {}", value ? "paused (cluster-wide switch)" : "resumed");
                        onChange.run();
                    }
                });
    }

    public void start() {
        polling.start(Duration.ZERO, interval);
    }

    public void stop() {
        polling.stop();
    }
}
