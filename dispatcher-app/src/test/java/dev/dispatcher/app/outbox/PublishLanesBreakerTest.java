package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.store.ClaimedMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A batch's lanes go to the publisher in one hand-off ({@link RecordPublisher#publishAll}) and each lane is still
 * one call of the circuit breaker: failed when it met an unavailable cluster or was left unpublished because
 * another lane of the hand-off did, successful otherwise, given back when the hand-off is cancelled.
 */
class PublishLanesBreakerTest {

    private static final String KAFKA_DOWN = "no broker";

    @Test
    void everyLaneOfOneBatchGoesInOneHandOffAndCountsAsOneSuccessfulCall() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream()
                .map(lane -> lane.records().stream().<DispatchResult>map(r -> DispatchResult.PUBLISHED).toList())
                .toList()));
        CircuitBreaker breaker = RelayBreaker.create("lanes-ok");

        List<Attempt<ClaimedMessage>> attempts = lanes(publisher, breaker, 64)
                .work(batch(rows("a", "a", "b", "c", "c", "c"))).block(Duration.ofSeconds(5));

        assertThat(publisher.handOffs).as("one hand-off of three lanes").hasSize(1);
        assertThat(publisher.handOffs.getFirst()).extracting(lane -> lane.records().size()).containsExactly(2, 1, 3);
        assertThat(attempts).hasSize(6).allMatch(a -> ((Attempt.Dispatched<ClaimedMessage>) a).result()
                instanceof DispatchResult.Published);
        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(3);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isZero();
    }

    @Test
    void lanesLeftUnpublishedByAnUnavailableClusterAreFailedCallsAndOpenTheBreaker() {
        // the publisher's contract: the first record that finds no broker ends the hand-off for every lane
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> {
            List<List<DispatchResult>> results = new ArrayList<>();
            for (int i = 0; i < lanes.size(); i++) {
                List<DispatchResult> lane = new ArrayList<>();
                for (int j = 0; j < lanes.get(i).records().size(); j++) {
                    lane.add(i == 0 && j == 0 ? new DispatchResult.Failed(FailureKind.UNAVAILABLE, KAFKA_DOWN)
                            : new DispatchResult.NotAttempted("Kafka was unavailable for an earlier record"));
                }
                results.add(lane);
            }
            return Mono.just(results);
        });
        CircuitBreaker breaker = RelayBreaker.create("lanes-down");

        List<Attempt<ClaimedMessage>> attempts = lanes(publisher, breaker, 64)
                .work(batch(rows("a", "b", "c", "d"))).block(Duration.ofSeconds(5));

        assertThat(attempts).hasSize(4).noneMatch(a -> ((Attempt.Dispatched<ClaimedMessage>) a).result()
                instanceof DispatchResult.Published);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).as("every lane of the hand-off").isEqualTo(4);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void aLanePublishedBeforeTheClusterWentAwayIsASuccessfulCall() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(List.of(
                List.of(DispatchResult.PUBLISHED, DispatchResult.PUBLISHED),
                List.of(new DispatchResult.Failed(FailureKind.UNAVAILABLE, KAFKA_DOWN)),
                List.of(new DispatchResult.NotAttempted("Kafka was unavailable for an earlier record")))));
        CircuitBreaker breaker = RelayBreaker.create("lanes-half");

        lanes(publisher, breaker, 64).work(batch(rows("a", "a", "b", "c"))).block(Duration.ofSeconds(5));

        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(1);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isEqualTo(2);
    }

    @Test
    void lanesBeyondPublishConcurrencyGoInAFollowingHandOff() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream()
                .map(lane -> lane.records().stream().<DispatchResult>map(r -> DispatchResult.PUBLISHED).toList())
                .toList()));

        lanes(publisher, RelayBreaker.create("lanes-groups"), 2)
                .work(batch(rows("a", "b", "c", "d", "e"))).block(Duration.ofSeconds(5));

        assertThat(publisher.handOffs).extracting(List::size).containsExactly(2, 2, 1);
    }

    @Test
    void aCancelledHandOffGivesItsPermissionsBack() {
        Sinks.One<List<List<DispatchResult>>> never = Sinks.one();
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> never.asMono());
        CircuitBreaker breaker = RelayBreaker.create("lanes-cancel");
        breaker.transitionToOpenState();
        breaker.transitionToHalfOpenState(); // two permissions, as after a probe

        lanes(publisher, breaker, 64).work(batch(rows("a", "b"))).subscribe().dispose();

        assertThat(breaker.tryAcquirePermission()).as("first permission back").isTrue();
        assertThat(breaker.tryAcquirePermission()).as("second permission back").isTrue();
        assertThat(breaker.getMetrics().getNumberOfFailedCalls() + breaker.getMetrics().getNumberOfSuccessfulCalls())
                .as("nothing recorded for the cancelled hand-off").isZero();
    }

    private static PublishLanes lanes(RecordPublisher publisher, CircuitBreaker breaker, int publishConcurrency) {
        RelaySettings base = RelayFixture.settings("lanes", Ordering.PER_KEY);
        RelaySettings settings = new RelaySettings(base.workerId(), base.batchSize(), base.maxInFlightBatches(),
                publishConcurrency, base.leaseDuration(), base.pollInterval(), base.ordering(), base.retryPolicy(),
                base.drainTimeout());
        return new PublishLanes(publisher, breaker, settings, RelayFixture.metrics(), Clock.systemUTC());
    }

    private static List<ClaimedMessage> rows(String... keys) {
        List<ClaimedMessage> rows = new ArrayList<>();
        long seq = 0;
        for (String key : keys) {
            LeasedMessage leased = new LeasedMessage(MessageId.of(UUID.randomUUID()),
                    new Lease("lanes", UUID.randomUUID(), Instant.now().plusSeconds(30)), 0, 1, MessageStatus.PENDING,
                    key, ++seq);
            rows.add(new ClaimedMessage(leased, "t", "e", new byte[0], "application/json", Map.of(), null, null,
                    Instant.now(), false));
        }
        return rows;
    }

    private static BatchStrategy.Batch<ClaimedMessage> batch(List<ClaimedMessage> rows) {
        return new BatchStrategy.Batch<>() {
            @Override
            public List<ClaimedMessage> messages() {
                return rows;
            }

            @Override
            public boolean stopping() {
                return false;
            }

            @Override
            public void written(ClaimedMessage message) {
            }
        };
    }

    /** Answers each hand-off with a script and records the lanes it was given. */
    private static final class ScriptedPublisher implements RecordPublisher {

        final List<List<Lane>> handOffs = new CopyOnWriteArrayList<>();
        private final Function<List<Lane>, Mono<List<List<DispatchResult>>>> script;

        ScriptedPublisher(Function<List<Lane>, Mono<List<List<DispatchResult>>>> script) {
            this.script = script;
        }

        @Override
        public Mono<List<List<DispatchResult>>> publishAll(List<Lane> lanes, Pace pace) {
            handOffs.add(lanes);
            return script.apply(lanes);
        }

        @Override
        public Mono<List<DispatchResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return publishAll(List.of(new Lane(records, ordered)), pace).map(List::getFirst);
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return Mono.just(true);
        }

        @Override
        public void close() {
        }
    }
}
