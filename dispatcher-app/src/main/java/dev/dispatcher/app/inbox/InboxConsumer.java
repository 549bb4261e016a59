package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.DeadLetterPublisher;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.queue.ClaimLoop;
import dev.dispatcher.app.queue.DeadLetterPort;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.InboxStore;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One configured inbox consumer in this instance: its intake (Kafka to {@code inbox_message}) and its handler loop
 * (a {@link ClaimLoop} running {@link RunHandlers}). Intake wakes the loop when it stored new rows; loops of other
 * instances find them by polling.
 */
final class InboxConsumer {

    private final InboxSettings settings;
    private final InboxStore.Consumer rows;
    private final ClaimLoop<ClaimedInboxMessage> loop;
    private final InboxIntake intake;
    private final Scheduler scheduler;

    /** A consumer without a dead-letter topic. */
    public InboxConsumer(RecordReceiver receiver, InboxStore store, InboxHandler handler, InboxSettings settings,
            DispatcherMetrics metrics) {
        this(receiver, store, handler, settings, metrics, null);
    }

    /**
     * A consumer; {@code deadLetters} publishes to {@link InboxSettings#deadLetterTopic()} and must be given when
     * the settings name one.
     */
    public InboxConsumer(RecordReceiver receiver, InboxStore store, InboxHandler handler, InboxSettings settings,
            DispatcherMetrics metrics, @Nullable RecordPublisher deadLetters) {
        Objects.requireNonNull(receiver, "receiver");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.rows = store.consumer(settings.consumer(), settings.ordering(),
                settings.keyRun());
        this.scheduler = Schedulers.newSingle("dispatcher-inbox-" + settings.consumer());
        this.loop = handlerLoop(rows, handler, settings, metrics, scheduler, deadLetters);
        this.intake = new InboxIntake(receiver, store, settings, metrics, loop::wake);
    }

    /** A consumer's handler loop without a dead-letter topic. */
    static ClaimLoop<ClaimedInboxMessage> handlerLoop(InboxStore.Consumer rows, InboxHandler handler,
            InboxSettings settings, DispatcherMetrics metrics, Scheduler scheduler) {
        return handlerLoop(rows, handler, settings, metrics, scheduler, null);
    }

    /** A consumer's handler loop: the kernel on its rows with {@link RunHandlers}; never paused. */
    static ClaimLoop<ClaimedInboxMessage> handlerLoop(InboxStore.Consumer rows, InboxHandler handler,
            InboxSettings settings, DispatcherMetrics metrics, Scheduler scheduler,
            @Nullable RecordPublisher deadLetters) {
        DeadLetterPort<ClaimedInboxMessage> port = DeadLetterPort.none();
        if (settings.deadLetterTopic() != null) {
            port = new InboxDeadLetters(settings.deadLetterTopic(), new DeadLetterPublisher(Objects.requireNonNull(
                    deadLetters, "a publisher for the dead-letter topic"), "inbox " + settings.consumer(), metrics));
        }
        return new ClaimLoop<>("inbox " + settings.consumer(), rows, new RunHandlers(rows, handler, settings), port,
                settings.loop(), metrics, () -> false, scheduler);
    }

    /** Starts the handler loop, then the intake. */
    public void start() {
        loop.start();
        intake.start();
    }

    /** Releases the loop's scheduler, once stopped for good. */
    public void close() {
        scheduler.dispose();
    }

    /**
     * Closes the intake (uncommitted offsets are redelivered later), then drains the handler loop; {@link #start()}
     * may run both again.
     */
    public Mono<Void> stop() {
        return Mono.fromRunnable(intake::stop).then(loop.stop());
    }

    public InboxIntake intake() {
        return intake;
    }

    /** The handler loop. */
    public ClaimLoop<ClaimedInboxMessage> loop() {
        return loop;
    }

    /** This consumer's rows (backlog, retention). */
    public InboxStore.Consumer rows() {
        return rows;
    }

    public String name() {
        return settings.consumer();
    }
}
