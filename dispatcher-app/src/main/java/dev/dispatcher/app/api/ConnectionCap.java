package dev.dispatcher.app.api;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the HTTP server's open connections at {@code dispatcher.server.max-connections}, which Reactor Netty and
 * Spring Boot have no setting for: each accepted connection is counted until it closes, and one accepted beyond the
 * cap is closed at once, before a byte of it is read, counted in {@value #REFUSED_METRIC} and logged at most once
 * per {@link #LOG_EVERY}. So a client opening connections by the thousand (each one holding a file descriptor and
 * buffers, idle until {@code server.netty.idle-timeout}) cannot exhaust the process's file descriptors; connections
 * already open are untouched. Called on the connection's event loop as it is initialised; thread-safe (an atomic
 * count; a connection past the cap is counted and then undone, so two racing at the edge may both be closed, never
 * more than the cap kept).
 */
final class ConnectionCap {

    /** Connections closed because the cap was reached (docs/operations.md, "Metrics"). */
    static final String REFUSED_METRIC = "dispatcher.server.connections.refused";
    static final Duration LOG_EVERY = Duration.ofMinutes(1);
    private static final Logger log = LoggerFactory.getLogger(ConnectionCap.class);

    private final int max;
    private final Counter refused;
    private final LongSupplier nanoTime;
    private final AtomicInteger open = new AtomicInteger();
    /** When the last refusal was logged ({@link #nanoTime}), or none yet. */
    private final AtomicLong loggedAt;

    ConnectionCap(int max, MeterRegistry meters, LongSupplier nanoTime) {
        this.max = max;
        this.refused = Counter.builder(REFUSED_METRIC)
                .description("connections closed at once because dispatcher.server.max-connections were open")
                .register(meters);
        this.nanoTime = nanoTime;
        this.loggedAt = new AtomicLong(nanoTime.getAsLong() - LOG_EVERY.toNanos());
    }

    /**
     * Counts {@code connection} until it closes, or closes it now when {@link #max} are open.
     *
     * @return whether it was kept
     */
    boolean admit(Channel connection) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            refused.increment();
            connection.close();
            logRefusal();
            return false;
        }
        connection.closeFuture().addListener(closed -> open.decrementAndGet());
        return true;
    }

    /** Connections open now (those this cap kept and that have not closed). */
    int open() {
        return open.get();
    }

    private void logRefusal() {
        long now = nanoTime.getAsLong();
        long last = loggedAt.get();
        if (now - last >= LOG_EVERY.toNanos() && loggedAt.compareAndSet(last, now)) {
            log.warn("Closed a new connection at once: {} connections are open, the bound"
                    + " dispatcher.server.max-connections; {} refused so far ({}); logged at most once a minute",
                    max, (long) refused.count(), REFUSED_METRIC);
        }
    }
}
