package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.ReceivedRecord;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.kafka.RecordReceiver.ReceivedBatch;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.Result;
import dev.dispatcher.app.observe.MessageLogContext;
import dev.dispatcher.app.store.InboxRecord;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.Queue;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Takes one consumer's Kafka records into the inbox: each record of a polled batch gets its verdict
 * ({@link IntakeCheck}: stored as received, stored with its key as bytes, or stored dead-lettered as poison), the
 * batch is stored ({@link IntakeWriter}: one {@code INSERT ... ON CONFLICT DO NOTHING} statement, record by record
 * if the database refuses a value), and only then are its offsets committed. So no record stops its partition: a
 * record that cannot be stored as received is stored {@code DEAD_LETTERED} with its position, raw key and reason,
 * counted as {@code dispatcher.inbox.poison{consumer}} and logged as a warning, and the partition moves on.
 * Records whose id was already stored are counted as {@code dispatcher.messages{queue=inbox,result=duplicate}}.
 *
 * <p>Backpressure: before storing a batch, intake checks the consumer's live backlog; while it is at
 * {@code maxBacklog} or more, intake waits (re-checking every poll interval) and requests nothing, so the receiver
 * pauses its partitions. A transiently failed insert is retried with backoff; if storing fails otherwise, or the
 * receiver fails, it is subscribed again (a fresh consumer), and records whose offsets were not committed arrive
 * again and are recognised as duplicates.
 */
public final class InboxIntake {

    private static final Logger log = LoggerFactory.getLogger(InboxIntake.class);

    private final RecordReceiver receiver;
    private final InboxStore store;
    private final IntakeWriter writer;
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
        this.writer = new IntakeWriter(store, settings.consumer(), settings.ordering());
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.onStored = Objects.requireNonNull(onStored, "onStored");
    }

    /** Subscribes the consumer. Idempotent. */
    public synchronized void start() {
        if (running != null) {
            return;
        }
        metrics.inboxPoison(settings.consumer(), 0); // the series exists before the first poison record
        running = receiver.receive()
                .concatMap(this::take, 0)
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(30))
                        .doBeforeRetry(s -> event(Level.WARN).log("inbox {} intake failed ({}); resubscribing",
                                settings.consumer(), s.failure().toString())))
                .subscribe();
        event(Level.INFO).log("inbox {} intake started (worker {})", settings.consumer(), settings.loop().workerId());
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
                .then(Mono.defer(() -> writer.write(rows(batch.records()))))
                .flatMap(stored -> {
                    metrics.messages(Queue.INBOX, Result.DUPLICATE, stored.rows().size() - stored.inserted().size());
                    countPoison(stored);
                    if (!stored.inserted().isEmpty()) {
                        onStored.run();
                    }
                    return batch.commit();
                });
    }

    /** The rows of a batch, each as its verdict says. */
    private List<InboxRecord> rows(List<ReceivedRecord> received) {
        return received.stream().map(r -> IntakeCheck.check(r, settings.maxPayloadBytes()).row()).toList();
    }

    /** Counts and logs each poison row this batch inserted (a redelivered one was counted when first stored). */
    private void countPoison(IntakeWriter.Stored stored) {
        Set<MessageId> inserted = new HashSet<>(stored.inserted());
        for (InboxRecord row : stored.rows()) {
            if (row.deadLettered() && inserted.remove(row.id())) {
                metrics.inboxPoison(settings.consumer(), 1);
                MessageLogContext.of(row.id().value(), row.topic(), metrics.source(), settings.consumer(),
                                row.headers()).on(log.atWarn())
                        .log("inbox {}: poison record {}/{}@{} (message {}) stored DEAD_LETTERED: {}",
                                settings.consumer(), row.topic(), row.partition(), row.offset(), row.id(),
                                row.deadLetterReason());
            }
        }
    }

    /** An event of this consumer's intake, carrying its source and consumer as key-value pairs. */
    private LoggingEventBuilder event(Level level) {
        return MessageLogContext.queue(metrics.source(), settings.consumer()).on(log.atLevel(level));
    }

    /** Completes once the consumer's backlog is under the bound. */
    private Mono<Void> awaitRoom() {
        return Mono.defer(() -> store.backlogAtLeast(settings.consumer(), settings.maxBacklog()))
                .onErrorReturn(false)
                .flatMap(over -> {
                    if (!over) {
                        if (paused.compareAndSet(true, false)) {
                            event(Level.INFO).log("inbox {} intake resumed", settings.consumer());
                        }
                        return Mono.just(true);
                    }
                    if (paused.compareAndSet(false, true)) {
                        event(Level.INFO).log("inbox {} intake paused: backlog at {} or more", settings.consumer(),
                                settings.maxBacklog());
                    }
                    return Mono.delay(settings.loop().pollInterval()).then(Mono.<Boolean>empty());
                })
                .repeatWhenEmpty(Integer.MAX_VALUE, repeats -> repeats)
                .then();
    }
}
