package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.DeadLetterPublisher;
import dev.dispatcher.app.kafka.DeadLetterRecords;
import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.queue.DeadLetterPort;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The relay's dead-letter port, its dead-letter topic ({@code dispatcher.relay.dead-letter-topic}): each row the loop
 * dead-letters is published there as the record it would have been, in the relay's {@link RecordFormat}, with {@link
 * DeadLetterRecords}' headers added ({@code dispatcher-dead-letter-reason}, {@code dispatcher-attempts}, {@code
 * dispatcher-original-topic}), before its row turns {@code DEAD_LETTERED}. A row whose dead-letter topic cannot be
 * a topic of its own (the resolved name is too long, or is the row's own topic: the template is checked at start-up,
 * the relay's topics only here) is dead-lettered in the table alone, counted and logged, as one the topic refuses.
 */
final class RelayDeadLetters implements DeadLetterPort<ClaimedOutboxMessage> {

    private final DeadLetterTopic topic;
    private final RecordFormat format;
    private final DeadLetterPublisher publisher;

    RelayDeadLetters(DeadLetterTopic topic, RecordFormat format, DeadLetterPublisher publisher) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.format = Objects.requireNonNull(format, "format");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    /** Publishes {@code deadLetters}; completes when each was acknowledged or failed, never errors. */
    @Override
    public Mono<Void> handOn(List<DeadLetter<ClaimedOutboxMessage>> deadLetters) {
        List<DeadLetterPublisher.Letter> letters = new ArrayList<>(deadLetters.size());
        for (DeadLetter<ClaimedOutboxMessage> dead : deadLetters) {
            ClaimedOutboxMessage m = dead.message();
            String id = m.leased().id().value();
            Optional<String> problem = topic.problemFor(m.topic());
            if (problem.isPresent()) {
                publisher.unpublishable(id, topic.resolve(m.topic()), problem.get());
                continue;
            }
            OutboundRecord record = format.toRecord(m);
            letters.add(new DeadLetterPublisher.Letter(id, DeadLetterRecords.of(topic, m.topic(), record.key(), null,
                    record.value(), record.headers(), dead.reason(), m.leased().attempts())));
        }
        return publisher.publish(letters);
    }
}
