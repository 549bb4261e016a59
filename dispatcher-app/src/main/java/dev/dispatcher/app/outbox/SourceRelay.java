package dev.dispatcher.app.outbox;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.RateHistory;
import dev.dispatcher.app.observe.RunSummary;
import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.source.Source;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.OutboxStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The relay of one source and what runs beside it, all on that source's own pool: its claim loop ({@link Relay}),
 * its pause switch (the source's {@code dispatcher_control}), its {@code LISTEN} wake-ups, retention and backlog
 * summary, and its metrics (tagged with the source). A source that is down or slow fails only its own statements:
 * its loop backs off and claims again when the database answers, while the other sources' relays go on.
 *
 * <p>Starts once the source's tables are migrated ({@link Source#migrated()}); stops by draining its relay.
 */
public final class SourceRelay {

    private static final Logger log = LoggerFactory.getLogger(SourceRelay.class);

    private final Source source;
    private final OutboxStore store;
    private final ControlStore control;
    private final AuditTrail audit;
    private final PauseSwitch pauseSwitch;
    private final Relay relay;
    private final OutboxListener listener;
    private final Retention retention;
    private final Duration retentionEvery;
    private final RunSummary summary;
    private final RateHistory history;
    private final DispatcherMetrics metrics;
    /** Written by start and stop, which Spring calls one at a time. */
    private Disposable starting;
    private volatile boolean started;

    SourceRelay(Source source, OutboxStore store, ControlStore control, AuditTrail audit, PauseSwitch pauseSwitch,
            Relay relay, OutboxListener listener, Retention retention, Duration retentionEvery, RunSummary summary,
            RateHistory history, DispatcherMetrics metrics) {
        this.source = source;
        this.store = store;
        this.control = control;
        this.audit = audit;
        this.pauseSwitch = pauseSwitch;
        this.relay = relay;
        this.listener = listener;
        this.retention = retention;
        this.retentionEvery = retentionEvery;
        this.summary = summary;
        this.history = history;
        this.metrics = metrics;
        pauseSwitch.onChange(relay::pauseChanged);
    }

    /** Starts everything once the source's tables are migrated (at once for a source migrated at start-up). */
    synchronized void start() {
        starting = source.migrated().subscribe(null,
                e -> log.error("source {}: its relay does not start: {}", source.name(), e.toString()),
                this::startNow);
    }

    private synchronized void startNow() {
        pauseSwitch.start();
        listener.start();
        relay.start();
        retention.start(retentionEvery);
        summary.start();
        started = true;
    }

    /** Stops claiming and drains in-flight batches; completes when they are written. */
    synchronized Mono<Void> stop() {
        if (starting != null) {
            starting.dispose();
        }
        if (!started) {
            return Mono.empty();
        }
        started = false;
        summary.stop();
        retention.stop();
        listener.stop();
        return relay.stop().doFinally(s -> pauseSwitch.stop());
    }

    /** Releases the relay's own scheduler, once stopped for good. */
    void close() {
        relay.close();
    }

    public String name() {
        return source.name();
    }

    public Source source() {
        return source;
    }

    public OutboxStore store() {
        return store;
    }

    public ControlStore control() {
        return control;
    }

    public AuditTrail audit() {
        return audit;
    }

    public PauseSwitch pauseSwitch() {
        return pauseSwitch;
    }

    public Relay relay() {
        return relay;
    }

    /** The source's recent rates, for the console. */
    public RateHistory history() {
        return history;
    }

    public DispatcherMetrics metrics() {
        return metrics;
    }
}
