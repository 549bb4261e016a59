package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.BatchStrategyContract;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The relay's strategy ({@link PublishLanes}) under the strategy contract, over a publisher that refuses the named
 * records as Kafka refuses one record (too large) and, in an ordered lane, sends nothing after it.
 */
class PublishLanesContractTest extends BatchStrategyContract<ClaimedOutboxMessage> {

    private static final SendFailure REFUSED = new SendFailure(FailureKind.PERMANENT, SendFailure.Scope.RECORD,
            PublishFailureCause.RECORD_TOO_LARGE, "RecordTooLargeException: refused");

    private final List<ScriptedPublisher> publishers = new ArrayList<>();

    @Override
    protected BatchStrategy<ClaimedOutboxMessage> strategy(Set<String> failing) {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream()
                .map(lane -> results(lane, failing)).toList()));
        publishers.add(publisher);
        return new PublishLanes(publisher, RelayBreaker.create("contract"),
                CircuitBreakerRegistry.of(TopicBreakers.config()), RelayFixture.settings("contract", Ordering.PER_KEY),
                RelayFixture.metrics(), Clock.systemUTC());
    }

    private static List<PublishResult> results(RecordPublisher.Lane lane, Set<String> failing) {
        List<PublishResult> results = new ArrayList<>();
        boolean refused = false;
        for (var record : lane.records()) {
            if (refused && lane.ordered()) {
                results.add(new PublishResult.NotSent("an earlier record of the lane was refused"));
            } else if (failing.contains(new String(record.value(), StandardCharsets.UTF_8))) {
                results.add(new PublishResult.Failed(REFUSED));
                refused = true;
            } else {
                results.add(PublishResult.SENT);
            }
        }
        return results;
    }

    @Override
    protected ClaimedOutboxMessage message(String name, @Nullable String key, long seq) {
        LeasedMessage leased = new LeasedMessage(MessageId.of(UUID.randomUUID()),
                new Lease("contract", UUID.randomUUID(), Instant.now().plusSeconds(30)), 0, 1, MessageStatus.PENDING,
                key, seq);
        return new ClaimedOutboxMessage(leased, "t", "e", name.getBytes(StandardCharsets.UTF_8), "application/json",
                Map.of(), null, null, Instant.now(), false);
    }

    @Override
    protected String name(ClaimedOutboxMessage message) {
        return new String(message.payload(), StandardCharsets.UTF_8);
    }

    @Override
    protected int started() {
        return publishers.stream().flatMap(p -> p.handOffs.stream()).flatMap(List::stream)
                .mapToInt(lane -> lane.records().size()).sum();
    }
}
