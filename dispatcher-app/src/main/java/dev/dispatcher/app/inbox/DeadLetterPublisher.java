package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.DeadLetterRecords;
import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Publishes a consumer's message that is about to be dead-lettered to the consumer's dead-letter topic
 * ({@link DeadLetterRecords}: its value, key and headers, with the reason, attempts and source topic), and waits for
 * the acknowledgement, so its row turns {@code DEAD_LETTERED} only after the dead-letter topic has it. When the topic
 * does not take it (missing, unavailable, refused), the failure is logged and counted
 * ({@code dispatcher.dead.letter.topic.failures{queue=inbox,topic}}) and the row is dead-lettered in the table
 * alone: the dead-letter topic never holds a message back.
 *
 * <p>At least once: a row whose dead-letter transition is then not applied (its lease was lost meanwhile) may be
 * published again by the worker that finishes it.
 */
final class DeadLetterPublisher {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterPublisher.class);

    private final RecordPublisher publisher;
    private final DeadLetterTopic topic;
    private final String consumer;
    private final DispatcherMetrics metrics;

    DeadLetterPublisher(RecordPublisher publisher, DeadLetterTopic topic, String consumer, DispatcherMetrics metrics) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** Publishes {@code m}, dead-lettered for {@code reason}; completes when acknowledged or failed, never errors. */
    Mono<Void> publish(ClaimedInboxMessage m, String reason) {
        OutboundRecord record = DeadLetterRecords.of(topic, m.topic(), m.key(), m.keyBytes(), m.payload(),
                m.headers(), reason, m.leased().attempts());
        return Mono.defer(() -> publisher.publish(List.of(record), false, RecordPublisher.Pace.PROMPT))
                .map(List::getFirst)
                .onErrorResume(e -> Mono.just(new PublishResult.NotSent(e.toString())))
                .doOnNext(result -> {
                    PublishFailureCause cause = switch (result) {
                        case PublishResult.Sent sent -> null;
                        case PublishResult.Failed failed -> failed.failure().cause();
                        case PublishResult.NotSent notSent -> PublishFailureCause.OTHER;
                    };
                    if (cause != null) {
                        metrics.publishFailures(record.topic(), cause, 1);
                        log.warn("inbox {}: message {} could not be published to its dead-letter topic {} ({});"
                                + " it is dead-lettered in the table only", consumer, m.leased().id(), record.topic(),
                                result);
                    }
                })
                .then();
    }

    @Override
    public String toString() {
        return "DeadLetterPublisher[" + consumer + " -> " + topic + "]";
    }
}
