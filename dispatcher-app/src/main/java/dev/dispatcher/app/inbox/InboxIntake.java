package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.ReceivedRecord;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.kafka.RecordReceiver.ReceivedBatch;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.Result;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.InboxRecord;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.domain.Queue;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Takes one consumer's Kafka records into the inbox: each polled batch is stored with one {@code INSERT ... ON
 * CONFLICT DO NOTHING} statement, and only then are its offsets committed. Records whose id was already stored
 * are counted as {@code dispatcher.messages{queue=inbox,result=duplicate}}.
 *
 * <p>Backpressure: before storing a batch, intake checks the consumer's live backlog; while it is at
 * {@code maxBacklog} or more, intake waits (re-checking every poll interval) and requests nothing, so the receiver
 * pauses its partitions. A failed insert is retried with backoff; if the receiver fails, it is subscribed again
 * (a fresh consumer), and records whose offsets were not committed arrive again and are recognised as duplicates.
 */
public final class InboxIntake {

    private static final Logger log = LoggerFactory.getLogger(InboxIntake.class);

    private final RecordReceiver receiver;
    private final InboxStore store;
    private final InboxSettings settings;
    private final DispatcherMetrics metrics;
    private final Runnable onStored;
    private final AtomicBoolean paused = new AtomicBoolean();
    private volatile Disposable running;

    /** {@code onStored} runs after each batch that inserted rows (wakes the local processor); must be cheap. */
    public InboxIntake(RecordReceiver receiver, InboxStore store, InboxSettings settings, DispatcherMetrics metrics,
            Runnable onStored) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.onStored = Objects.requireNonNull(onStored, "onStored");
    }

    /** Subscribes the consumer. Idempotent. */
    public synchronized void start() {
        if (running != null) {
            return;
        }
        running = receiver.receive()
                .concatMap(this::take, 0)
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(30))
                        .doBeforeRetry(s -> log.warn("inbox {} intake failed ({}); resubscribing",
                                settings.consumer(), s.failure().toString())))
                .subscribe();
        log.info("inbox {} intake started (worker {})", settings.consumer(), settings.workerId());
    }

    /** Closes the consumer; offsets of batches not yet committed are left for redelivery. */
    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }

    /** Whether intake is waiting for the backlog to shrink. */
    public boolean isPaused() {
        return paused.get();
    }

    private Mono<Void> take(ReceivedBatch batch) {
        return awaitRoom()
                .then(Mono.defer(() -> store.store(settings.consumer(), records(batch.records())))
                        .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100))
                                .maxBackoff(Duration.ofSeconds(5))
                                .filter(DatabaseFailures::isRetryable)
                                .doBeforeRetry(s -> log.warn("inbox {}: storing {} records failed ({}); retrying",
                                        settings.consumer(), batch.records().size(), s.failure().toString()))))
                .flatMap(inserted -> {
                    metrics.messages(Queue.INBOX, Result.DUPLICATE, batch.records().size() - inserted.size());
                    if (!inserted.isEmpty()) {
                        onStored.run();
                    }
                    return batch.commit();
                });
    }

    /** Completes once the consumer's backlog is under the bound. */
    private Mono<Void> awaitRoom() {
        return Mono.defer(() -> store.backlogAtLeast(settings.consumer(), settings.maxBacklog()))
                .onErrorReturn(false)
                .flatMap(over -> {
                    if (!over) {
                        if (paused.compareAndSet(true, false)) {
                            log.info("inbox {} intake resumed", settings.consumer());
                        }
                        return Mono.just(true);
                    }
                    if (paused.compareAndSet(false, true)) {
                        log.info("inbox {} intake paused: backlog at {} or more", settings.consumer(),
                                settings.maxBacklog());
                    }
                    return Mono.delay(settings.pollInterval()).then(Mono.<Boolean>empty());
                })
                .repeatWhenEmpty(Integer.MAX_VALUE, repeats -> repeats)
                .then();
    }

    private static List<InboxRecord> records(List<ReceivedRecord> received) {
        return received.stream().map(r -> new InboxRecord(r.messageId(), r.topic(), r.partition(), r.offset(),
                r.key(), r.eventType(), r.headers(), r.payload())).toList();
    }
}
