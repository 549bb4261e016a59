package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import reactor.core.publisher.Mono;

/**
 * Fault injection at the publisher's boundary: while {@link #failing} is set, every record a predicate picks (one
 * topic's, or one key's) fails with {@code failure}, without being sent, as the real publisher reports it; for a
 * topic, the topic's check says the same. Other records go through the wrapped real publisher. Honours the ordered
 * contract (a refused record stops its lane). Thread-safe.
 */
final class FaultPublisher implements RecordPublisher {

    private final RecordPublisher delegate;
    private final Predicate<OutboundRecord> picked;
    /** The topic whose check is refused too, or null. */
    private final String topic;
    private final SendFailure failure;
    volatile boolean failing = true;
    /** Records refused so far. */
    final AtomicInteger refused = new AtomicInteger();

    private FaultPublisher(RecordPublisher delegate, Predicate<OutboundRecord> picked, String topic,
            SendFailure failure) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.picked = Objects.requireNonNull(picked, "picked");
        this.topic = topic;
        this.failure = Objects.requireNonNull(failure, "failure");
    }

    /** Fails every record of {@code topic}, and its check, with {@code failure}. */
    static FaultPublisher topic(RecordPublisher delegate, String topic, SendFailure failure) {
        return new FaultPublisher(delegate, r -> r.topic().equals(topic), topic, failure);
    }

    /** Fails every record of {@code key} with {@code failure}. */
    static FaultPublisher key(RecordPublisher delegate, String key, SendFailure failure) {
        return new FaultPublisher(delegate, r -> key.equals(r.key()), null, failure);
    }

    /** Fails every record of {@code key} on {@code topic} (not its records on other topics) with {@code failure}. */
    static FaultPublisher key(RecordPublisher delegate, String topic, String key, SendFailure failure) {
        return new FaultPublisher(delegate, r -> topic.equals(r.topic()) && key.equals(r.key()), null, failure);
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return Mono.defer(() -> {
            if (!failing) {
                return delegate.publish(records, ordered, pace);
            }
            List<OutboundRecord> passed = new ArrayList<>(records.size());
            List<Integer> positions = new ArrayList<>(records.size());
            PublishResult[] results = new PublishResult[records.size()];
            boolean stopped = false;
            for (int i = 0; i < records.size(); i++) {
                if (stopped) {
                    results[i] = new PublishResult.NotSent("an earlier record of this lane failed");
                } else if (picked.test(records.get(i))) {
                    refused.incrementAndGet();
                    results[i] = new PublishResult.Failed(failure);
                    stopped = ordered;
                } else {
                    passed.add(records.get(i));
                    positions.add(i);
                }
            }
            return delegate.publish(passed, ordered, pace).map(sent -> {
                for (int j = 0; j < sent.size(); j++) {
                    results[positions.get(j)] = sent.get(j);
                }
                return List.of(results);
            });
        });
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String name) {
        return failing && name.equals(topic) ? Mono.just(Optional.of(failure)) : delegate.checkTopic(name);
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return delegate.probe(timeout);
    }

    @Override
    public void close() {
        // the fixture closes the delegate
    }
}
