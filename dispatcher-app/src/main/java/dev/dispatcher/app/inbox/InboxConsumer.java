package dev.dispatcher.app.inbox;

import dev.dispatcher.app.observe.DispatcherMetrics;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * One configured inbox consumer in this instance: its intake (Kafka to {@code inbox_message}) and its processor
 * (rows to the handler). Intake wakes the processor when it stored new rows; processors of other instances find
 * them by polling.
 */
public final class InboxConsumer {

    private final InboxProcessor processor;
    private final InboxIntake intake;

    public InboxConsumer(InboxReceiver receiver, InboxStore store, InboxHandler handler, InboxSettings settings,
            DispatcherMetrics metrics, ConnectionFactory connections) {
        Objects.requireNonNull(receiver, "receiver");
        this.processor = new InboxProcessor(store, handler, settings, metrics, connections);
        this.intake = new InboxIntake(receiver, store, settings, metrics, processor::wake);
    }

    /** Starts the processor, then the intake. */
    public void start() {
        processor.start();
        intake.start();
    }

    /** Closes the intake (uncommitted offsets are redelivered later), then drains the processor. */
    public Mono<Void> stop() {
        return Mono.fromRunnable(intake::stop).then(processor.stop());
    }

    public InboxIntake intake() {
        return intake;
    }

    public InboxProcessor processor() {
        return processor;
    }

    public String name() {
        return processor.settings().consumer();
    }
}
