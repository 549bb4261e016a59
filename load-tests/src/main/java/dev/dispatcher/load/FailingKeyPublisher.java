package dev.dispatcher.load;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The {@code --failing-key} drain's fault, injected at the publisher's boundary: every record of one key fails
 * transiently without being sent (as a record the broker keeps refusing would), so that key's head is retried with
 * backoff and holds back only its own rows; every other record goes through the real publisher. A refused record
 * stops its ordered lane, as the real publisher's contract says.
 */
final class FailingKeyPublisher implements RecordPublisher {

    private static final PublishResult FAILED = new PublishResult.Failed(new SendFailure(FailureKind.TRANSIENT,
            SendFailure.Scope.RECORD, PublishFailureCause.OTHER, "injected by the benchmark's --failing-key"));

    private final RecordPublisher delegate;
    private final String key;

    FailingKeyPublisher(RecordPublisher delegate, String key) {
        this.delegate = delegate;
        this.key = key;
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
    }

    @Override
    public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        // a key is one ordered lane: a lane of the failing key fails at its head, every other lane goes as it is
        List<Lane> passed = new ArrayList<>(lanes.size());
        for (Lane lane : lanes) {
            if (!failing(lane)) {
                passed.add(lane);
            }
        }
        return (passed.isEmpty() ? Mono.just(List.<List<PublishResult>>of()) : delegate.publishAll(passed, pace))
                .map(sent -> {
                    List<List<PublishResult>> results = new ArrayList<>(lanes.size());
                    int next = 0;
                    for (Lane lane : lanes) {
                        results.add(failing(lane) ? refused(lane) : sent.get(next++));
                    }
                    return results;
                });
    }

    private boolean failing(Lane lane) {
        return !lane.records().isEmpty() && key.equals(lane.records().getFirst().key());
    }

    private static List<PublishResult> refused(Lane lane) {
        List<PublishResult> results = new ArrayList<>(lane.records().size());
        results.add(FAILED);
        for (int i = 1; i < lane.records().size(); i++) {
            results.add(new PublishResult.NotSent("an earlier record of this lane failed"));
        }
        return results;
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return delegate.checkTopic(topic);
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        return delegate.probe(timeout);
    }

    @Override
    public void close() {
        // the environment closes the real publisher
    }
}
