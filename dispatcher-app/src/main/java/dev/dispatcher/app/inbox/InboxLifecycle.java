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

    /**
     * The consumers whose inbox table lives in one source, that table's retention, and the source's inbox depth
     * and age gauges (summed over its consumers).
     */
    record SourceInbox(List<InboxConsumer> consumers, Retention retention, DispatcherMetrics.QueueGauges gauges) {

        SourceInbox {
            consumers = List.copyOf(consumers);
        }
    }

    private final List<InboxConsumer> consumers;
    private final List<Retention> retentions;
    private final Duration retentionEvery;
    private final Duration gaugesEvery;
    /** Each source's depth and age gauges, summed over its consumers. */
    private final List<PeriodicPass> gaugePolling;
    /** The consumers' dead-letter topics' publisher, or null; closed when the context closes. */
    private final @Nullable RecordPublisher deadLetters;
    private volatile boolean running;

    InboxLifecycle(List<SourceInbox> sources, Duration retentionEvery, Duration gaugesEvery,
            @Nullable RecordPublisher deadLetters) {
        this.consumers = sources.stream().flatMap(s -> s.consumers().stream()).toList();
        this.retentions = sources.stream().map(SourceInbox::retention).toList();
        this.deadLetters = deadLetters;
        this.retentionEvery = retentionEvery;
        this.gaugesEvery = gaugesEvery;
        this.gaugePolling = sources.stream().map(InboxLifecycle::gaugePolling).toList();
    }

    private static PeriodicPass gaugePolling(SourceInbox source) {
        // counted no more often than the count's cost allows (CostBoundedRead), as the outbox's run summary does
        CostBoundedRead<Backlog> counted = new CostBoundedRead<>(() -> Flux.fromIterable(source.consumers())
                .concatMap(c -> c.rows().backlog())
                .reduce(Backlog.EMPTY, (a, b) -> new Backlog(a.pending() + b.pending(),
                        a.retryScheduled() + b.retryScheduled(),
                        a.oldestAge().compareTo(b.oldestAge()) >= 0 ? a.oldestAge() : b.oldestAge())));
        return new PeriodicPass(() -> counted.get()
                .doOnNext(b -> source.gauges().update(b.pending(), b.retryScheduled(), b.oldestAge()))
                .then(),
                e -> log.debug("inbox backlog poll failed: {}", e.toString()));
    }

    @Override
    public void start() {
        consumers.forEach(InboxConsumer::start);
        retentions.forEach(r -> r.start(retentionEvery));
        gaugePolling.forEach(p -> p.start(gaugesEvery, gaugesEvery));
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
        retentions.forEach(Retention::stop);
        gaugePolling.forEach(PeriodicPass::stop);
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
