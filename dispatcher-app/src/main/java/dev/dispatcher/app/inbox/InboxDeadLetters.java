package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.DeadLetterPublisher;
import dev.dispatcher.app.kafka.DeadLetterRecords;
import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.queue.DeadLetterPort;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * A consumer's dead-letter port, its dead-letter topic ({@code dead-letter-topic} of the consumer): each message the
 * handler loop dead-letters is published there with its value, key and headers plus the reason, attempts and source
 * topic ({@link DeadLetterRecords}) before its row turns {@code DEAD_LETTERED}; one the topic refuses is
 * dead-lettered in the table alone, counted ({@link DeadLetterPublisher}).
 */
final class InboxDeadLetters implements DeadLetterPort<ClaimedInboxMessage> {

    private final DeadLetterTopic topic;
    private final DeadLetterPublisher publisher;

    InboxDeadLetters(DeadLetterTopic topic, DeadLetterPublisher publisher) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    /** Publishes {@code deadLetters}; completes when each was acknowledged or failed, never errors. */
    @Override
    public Mono<Void> handOn(List<DeadLetter<ClaimedInboxMessage>> deadLetters) {
        List<DeadLetterPublisher.Letter> letters = new ArrayList<>(deadLetters.size());
        for (DeadLetter<ClaimedInboxMessage> dead : deadLetters) {
            ClaimedInboxMessage m = dead.message();
            letters.add(new DeadLetterPublisher.Letter(m.leased().id().value(), DeadLetterRecords.of(topic, m.topic(),
                    m.key(), m.keyBytes(), m.payload(), m.headers(), dead.reason(), m.leased().attempts())));
        }
        return publisher.publish(letters);
    }
}
