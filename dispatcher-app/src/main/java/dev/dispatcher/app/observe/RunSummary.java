package dev.dispatcher.app.observe;

import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.domain.Queue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Polls the outbox backlog into the depth and age gauges and logs one summary line per interval: published per
 * second, backlog, oldest pending age, retries, dead letters and non-applied outcomes since the last line; each
 * poll is also a sample of the {@link RateHistory} the console charts.
 */
public final class RunSummary {

    private static final Logger log = LoggerFactory.getLogger(RunSummary.class);

    private final Supplier<Mono<Backlog>> backlog;
    private final DispatcherMetrics.QueueGauges gauges;
    private final MeterRegistry registry;
    private final Duration interval;
    private final boolean logLines;
    /** Counter totals at the previous line; touched only by the polling subscription. */
    private double lastPublished;
    private double lastRetries;
    private double lastDeadLetters;
    private double lastNotApplied;
    private volatile Disposable running;

    private final RateHistory history;

    public RunSummary(Supplier<Mono<Backlog>> backlog, DispatcherMetrics metrics, Duration interval, boolean logLines,
            RateHistory history) {
        this.history = history;
        this.backlog = backlog;
        this.gauges = metrics.queueGauges(Queue.OUTBOX);
        this.registry = metrics.registry();
        this.interval = interval;
        this.logLines = logLines;
    }

    public synchronized void start() {
        if (running == null) {
            running = Flux.interval(interval, interval).onBackpressureDrop()
                    .concatMap(t -> backlog.get()
                            .doOnNext(this::update)
                            .onErrorResume(e -> {
                                log.debug("backlog poll failed: {}", e.toString());
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

    private void update(Backlog b) {
        gauges.update(b.pending(), b.retryScheduled(), b.oldestAge());
        double published = sum("dispatcher.messages", c -> "published".equals(c.getId().getTag("result")));
        double retries = sum("dispatcher.transition.attempts", c -> "retry".equals(c.getId().getTag("transition"))
                && "applied".equals(c.getId().getTag("outcome")));
        double deadLetters = sum("dispatcher.messages", c -> "dead_lettered".equals(c.getId().getTag("result")));
        double notApplied = sum("dispatcher.transition.attempts", c -> !"applied".equals(c.getId().getTag("outcome")));
        if (logLines) {
            log.info(String.format(Locale.ROOT,
                    "relay: published %.1f/s, backlog %d (pending %d, retry %d), oldest pending %.1fs, retries %d, "
                            + "dead letters %d, not applied %d",
                    (published - lastPublished) / Math.max(1, interval.toMillis() / 1000.0), b.total(), b.pending(),
                    b.retryScheduled(), b.oldestAge().toMillis() / 1000.0, (long) (retries - lastRetries),
                    (long) (deadLetters - lastDeadLetters), (long) (notApplied - lastNotApplied)));
        }
        double seconds = Math.max(1, interval.toMillis() / 1000.0);
        history.record(new RateHistory.Sample(Instant.now(), (published - lastPublished) / seconds,
                (deadLetters - lastDeadLetters) / seconds, b.total(), b.oldestAge().toMillis()));
        lastPublished = published;
        lastRetries = retries;
        lastDeadLetters = deadLetters;
        lastNotApplied = notApplied;
    }

    private double sum(String name, Predicate<Counter> filter) {
        return registry.find(name).tag("queue", "outbox").counters().stream()
                .filter(filter).mapToDouble(Counter::count).sum();
    }
}
