package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/** Answers each hand-off and topic check with a script and records the lanes it was given. */
final class ScriptedPublisher implements RecordPublisher {

    final List<List<Lane>> handOffs = new CopyOnWriteArrayList<>();
    private final Function<List<Lane>, Mono<List<List<PublishResult>>>> script;
    private final Function<String, Mono<Optional<SendFailure>>> checks;
    volatile boolean clusterUp = true;
    volatile int clusterProbes;

    ScriptedPublisher(Function<List<Lane>, Mono<List<List<PublishResult>>>> script) {
        this(script, topic -> Mono.just(Optional.empty()));
    }

    ScriptedPublisher(Function<List<Lane>, Mono<List<List<PublishResult>>>> script,
            Function<String, Mono<Optional<SendFailure>>> checks) {
        this.script = script;
        this.checks = checks;
    }

    @Override
    public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
        handOffs.add(lanes);
        return script.apply(lanes);
    }

    @Override
    public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
        return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
    }

    @Override
    public Mono<Optional<SendFailure>> checkTopic(String topic) {
        return checks.apply(topic);
    }

    @Override
    public Mono<Boolean> probe(Duration timeout) {
        clusterProbes++;
        return Mono.just(clusterUp);
    }

    @Override
    public void close() {
    }
}
