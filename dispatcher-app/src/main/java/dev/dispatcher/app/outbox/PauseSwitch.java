package dev.dispatcher.app.outbox;

import dev.dispatcher.sql.ControlSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The cluster-wide relay pause switch, read from {@code dispatcher_control} every poll interval, so every instance
 * honours a pause within one interval. Keeps the last value it read when the database is unreachable.
 */
public final class PauseSwitch implements BooleanSupplier {

    private static final Logger log = LoggerFactory.getLogger(PauseSwitch.class);

    private final ConnectionFactory connections;
    private final Duration interval;
    /** Written by the polling subscription only. */
    private final AtomicBoolean paused = new AtomicBoolean();
    private volatile Disposable polling;

    public PauseSwitch(ConnectionFactory connections, Duration interval) {
        this.connections = connections;
        this.interval = interval;
    }

    @Override
    public boolean getAsBoolean() {
        return paused.get();
    }

    /** Reads the switch once now. */
    public Mono<Boolean> refresh() {
        return Flux.usingWhen(connections.create(),
                        c -> Flux.from(c.createStatement(ControlSql.READ).bind("$1", ControlSql.RELAY_PAUSED).execute())
                                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("enabled", Boolean.class)))),
                        Connection::close)
                .next()
                .defaultIfEmpty(false)
                .doOnNext(value -> {
                    if (paused.getAndSet(value) != value) {
                        log.info("relay {}", value ? "paused (cluster-wide switch)" : "resumed");
                    }
                });
    }

    public synchronized void start() {
        if (polling == null) {
            polling = Flux.interval(Duration.ZERO, interval).onBackpressureDrop()
                    .concatMap(t -> refresh().onErrorResume(e -> Mono.empty()))
                    .subscribe();
        }
    }

    public synchronized void stop() {
        if (polling != null) {
            polling.dispose();
            polling = null;
        }
    }
}
