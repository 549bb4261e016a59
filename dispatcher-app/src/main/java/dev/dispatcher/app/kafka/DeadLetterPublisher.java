package dev.dispatcher.app.kafka;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.observe.MessageLogContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Publishes messages that are about to be dead-lettered to their dead-letter topic ({@link DeadLetterRecords}
 * built the records) and waits for the acknowledgements, so their rows turn {@code DEAD_LETTERED} only after the
 * dead-letter topic has them. A record the topic does not take (missing, unavailable, refused) is logged and counted
 * ({@code dispatcher.publish.failures{topic=<the dead-letter topic>,cause}}) and its row is dead-lettered in the
 * table alone: a dead-letter topic never holds a message back. Shared by the relay and the inbox consumers.
 *
 * <p>The records go through the queue's {@link RecordPublisher} as one unordered hand-off: topic readiness applies as
 * to any record (a missing dead-letter topic is refused without a send, and is a failure of that topic alone), and
 * no breaker counts them. Where the brokers create topics on first use, a dead-letter topic that does not exist yet
 * is created first ({@link RecordPublisher#awaitCreated}), so its first dead letters reach it.
 *
 * <p>At least once: a row whose dead-letter transition is then not applied (its lease was lost meanwhile) may be
 * published again by the worker that finishes it.
 */
public final class DeadLetterPublisher {

    private static final Logger log = LoggerFactory.getLogger(DeadLetterPublisher.class);

    private final RecordPublisher publisher;
    private final String owner;
    private final DispatcherMetrics metrics;

    /**
     * @param publisher where the records go
     * @param owner what logs call the queue ({@code relay w1}, {@code inbox billing})
     * @param metrics counts the records the dead-letter topic did not take
     */
    public DeadLetterPublisher(RecordPublisher publisher, String owner, DispatcherMetrics metrics) {
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * A message's dead-letter record.
     *
     * @param messageId the message's id, for the log
     * @param record the record, on its dead-letter topic
     */
    public record Letter(String messageId, OutboundRecord record) {
        public Letter {
            Objects.requireNonNull(messageId, "messageId");
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * Counts and logs a message whose dead-letter record could not even be made ({@code problem}: its dead-letter
     * topic would be an invalid name, or its own topic); its row is dead-lettered in the table alone.
     */
    public void unpublishable(String messageId, String deadLetterTopic, String problem) {
        metrics.publishFailures(deadLetterTopic, PublishFailureCause.OTHER, 1);
        log.atWarn().addKeyValue(MessageLogContext.MESSAGE_ID, messageId).addKeyValue(MessageLogContext.SOURCE,
                        metrics.source())
                .log("{}: message {} is not published to a dead-letter topic: the dead-letter topic {}; it is"
                        + " dead-lettered in the table only", owner, messageId, problem);
    }

    /** Publishes {@code letters}; completes when each was acknowledged or failed, never errors. */
    public Mono<Void> publish(List<Letter> letters) {
        if (letters.isEmpty()) {
            return Mono.empty();
        }
        List<OutboundRecord> records = new ArrayList<>(letters.size());
        Set<String> topics = new HashSet<>();
        letters.forEach(letter -> {
            records.add(letter.record());
            topics.add(letter.record().topic());
        });
        return Mono.defer(() -> publisher.awaitCreated(topics))
                .then(Mono.defer(() -> publisher.publish(records, false, RecordPublisher.Pace.PROMPT)))
                .onErrorResume(e -> Mono.just(records.stream()
                        .<PublishResult>map(r -> new PublishResult.NotSent(e.toString())).toList()))
                .doOnNext(results -> {
                    for (int i = 0; i < results.size(); i++) {
                        counted(letters.get(i), results.get(i));
                    }
                })
                .then();
    }

    private void counted(Letter letter, PublishResult result) {
        PublishFailureCause cause = switch (result) {
            case PublishResult.Sent sent -> null;
            case PublishResult.Failed failed -> failed.failure().cause();
            case PublishResult.NotYet notYet -> PublishFailureCause.UNKNOWN_TOPIC; // still being created
            case PublishResult.NotSent notSent -> PublishFailureCause.OTHER;
        };
        if (cause != null) {
            metrics.publishFailures(letter.record().topic(), cause, 1);
            log.atWarn().addKeyValue(MessageLogContext.MESSAGE_ID, letter.messageId())
                    .addKeyValue(MessageLogContext.SOURCE, metrics.source())
                    .log("{}: message {} could not be published to its dead-letter topic {} ({}); it is dead-lettered"
                            + " in the table only", owner, letter.messageId(), letter.record().topic(), result);
        }
    }

    @Override
    public String toString() {
        return "DeadLetterPublisher[" + owner + "]";
    }
}
