package dev.dispatcher.app.observe;

import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.domain.Queue;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Polls the outbox backlog into the depth and age gauges and logs one summary line per interval: published per
 * second, backlog, oldest pending age, retries, dead letters and non-applied outcomes since the last line; each
 * poll is also a sample of the {@link RateHistory} the console charts. The backlog is counted no more often than
 * its cost allows ({@link CostBoundedRead}): behind a large backlog the figures are up to 50 times the count's
 * duration old, so the count never takes more than 2 % of a database backend.
 */
public final class RunSummary {

    private static final Logger log = LoggerFactory.getLogger(RunSummary.class);

    private final Supplier<Mono<Backlog>> backlog;
    private final DispatcherMetrics.QueueGauges gauges;
    private final DispatcherMetrics metrics;
    private final Duration interval;
    private final boolean logLines;
    /** Totals at the previous line; touched only by the polling subscription. */
    private DispatcherMetrics.Totals last = new DispatcherMetrics.Totals(0, 0, 0, 0);
    private final PeriodicPass periodic;

    private final RateHistory history;
    /** Empty for the default source, so a one-source deployment logs as before; else {@code " <source>"}. */
    private final String sourceLabel;

    public RunSummary(Supplier<Mono<Backlog>> backlog, DispatcherMetrics metrics, Duration interval, boolean logLines,
            RateHistory history) {
        this.history = history;
        this.sourceLabel = DispatcherMetrics.DEFAULT_SOURCE.equals(metrics.source()) ? "" : " " + metrics.source();
        this.backlog = backlog;
        this.gauges = metrics.queueGauges(Queue.OUTBOX);
        this.metrics = metrics;
        this.interval = interval;
        this.logLines = logLines;
        CostBoundedRead<Backlog> counted = new CostBoundedRead<>(backlog);
        this.periodic = new PeriodicPass(() -> counted.get().doOnNext(this::update).then(),
                e -> log.debug("backlog poll failed: {}", e.toString()));
    }

    public void start() {
        periodic.start(interval, interval);
    }

    public void stop() {
        periodic.stop();
    }

    private void update(Backlog b) {
        gauges.update(b.pending(), b.retryScheduled(), b.oldestAge());
        DispatcherMetrics.Totals now = metrics.totals(Queue.OUTBOX);
        if (logLines) {
            DispatcherMetrics.Totals before = last;
            log.info(String.format(Locale.ROOT,
                    "relay" + sourceLabel + ": published %.1f/s, backlog %d (pending %d, retry %d), oldest pending"
                            + " %.1fs, retries %d, "
                            + "dead letters %d, not applied %d",
                    (now.succeeded() - before.succeeded()) / Math.max(1, interval.toMillis() / 1000.0), b.total(),
                    b.pending(), b.retryScheduled(), b.oldestAge().toMillis() / 1000.0,
                    now.retries() - before.retries(), now.deadLettered() - before.deadLettered(),
                    now.notApplied() - before.notApplied()));
        }
        DispatcherMetrics.Totals previous = last;
        double seconds = Math.max(1, interval.toMillis() / 1000.0);
        history.record(new RateHistory.Sample(Instant.now(), (now.succeeded() - previous.succeeded()) / seconds,
                (now.deadLettered() - previous.deadLettered()) / seconds, b.total(), b.oldestAge().toMillis()));
        last = now;
    }
}
