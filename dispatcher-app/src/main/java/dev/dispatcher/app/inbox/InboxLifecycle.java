package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.CostBoundedRead;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.store.Backlog;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;

/**
 * Starts the configured consumers, the inbox retention and the inbox depth gauges with the application, and
 * stops them without blocking: Spring's stop callback runs when every consumer has drained.
 */
final class InboxLifecycle implements SmartLifecycle, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(InboxLifecycle.class);

    private final List<InboxConsumer> consumers;
    private final Retention retention;
    private final Duration retentionEvery;
    private final DispatcherMetrics.QueueGauges gauges;
    private final Duration gaugesEvery;
    /** The inbox's depth and age gauges, summed over the consumers. */
    private final PeriodicPass gaugePolling;
    /** The consumers' dead-letter topics' publisher, or null; closed when the context closes. */
    private final @Nullable RecordPublisher deadLetters;
    private volatile boolean running;

    InboxLifecycle(List<InboxConsumer> consumers, Retention retention, Duration retentionEvery,
            DispatcherMetrics.QueueGauges gauges, Duration gaugesEvery, @Nullable RecordPublisher deadLetters) {
        this.consumers = List.copyOf(consumers);
        this.deadLetters = deadLetters;
        this.retention = retention;
        this.retentionEvery = retentionEvery;
        this.gauges = gauges;
        this.gaugesEvery = gaugesEvery;
        // counted no more often than the count's cost allows (CostBoundedRead), as the outbox's run summary does
        CostBoundedRead<Backlog> counted = new CostBoundedRead<>(() -> Flux.fromIterable(this.consumers)
                .concatMap(c -> c.rows().backlog())
                .reduce(Backlog.EMPTY, (a, b) -> new Backlog(a.pending() + b.pending(),
                        a.retryScheduled() + b.retryScheduled(),
                        a.oldestAge().compareTo(b.oldestAge()) >= 0 ? a.oldestAge() : b.oldestAge())));
        this.gaugePolling = new PeriodicPass(() -> counted.get()
                .doOnNext(b -> gauges.update(b.pending(), b.retryScheduled(), b.oldestAge()))
                .then(),
                e -> log.debug("inbox backlog poll failed: {}", e.toString()));
    }

    @Override
    public void start() {
        consumers.forEach(InboxConsumer::start);
        retention.start(retentionEvery);
        gaugePolling.start(gaugesEvery, gaugesEvery);
        running = true;
    }

    /**
     * Releases the consumers' schedulers and closes the dead-letter publisher when the application context closes
     * (after {@link #stop(Runnable)}: nothing publishes any more).
     */
    @Override
    public void destroy() {
        consumers.forEach(InboxConsumer::close);
        if (deadLetters != null) {
            deadLetters.close();
        }
    }

    @Override
    public void stop() {
        throw new UnsupportedOperationException("stopped asynchronously through stop(Runnable)");
    }

    @Override
    public void stop(Runnable callback) {
        retention.stop();
        gaugePolling.stop();
        Flux.fromIterable(consumers)
                .flatMap(InboxConsumer::stop)
                .then()
                .doFinally(s -> {
                    running = false;
                    callback.run();
                })
                .subscribe();
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
