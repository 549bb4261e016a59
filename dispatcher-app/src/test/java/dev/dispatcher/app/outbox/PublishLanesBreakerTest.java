package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A batch's lanes go to the publisher in one hand-off ({@link RecordPublisher#publishAll}); each lane is one call of
 * the relay-wide breaker, failed only when it met the broker unavailable (or was left unpublished because another
 * lane did); records that only timed out make the relay ask the cluster itself.
 */
class PublishLanesBreakerTest extends PublishLanesFixture {

    @Test
    void everyLaneOfOneBatchGoesInOneHandOffAndCountsAsOneSuccessfulCall() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(sentAll(lanes)));
        CircuitBreaker breaker = RelayBreaker.create("lanes-ok");

        List<Attempt<ClaimedOutboxMessage>> attempts = lanes(publisher, breaker, 64)
                .work(batch(rows("t", "a", "a", "b", "c", "c", "c"))).block(Duration.ofSeconds(5));

        assertThat(publisher.handOffs).as("one hand-off of three lanes").hasSize(1);
        assertThat(publisher.handOffs.getFirst()).extracting(lane -> lane.records().size()).containsExactly(2, 1, 3);
        assertThat(results(attempts)).hasSize(6).allMatch(r -> r instanceof DispatchResult.Published);
        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(3);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isZero();
    }

    @Test
    void lanesLeftUnpublishedByAnUnavailableBrokerAreFailedCallsAndOpenTheRelayBreaker() {
        // the publisher's contract: the first record that finds no broker ends the hand-off for every lane
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> {
            List<List<PublishResult>> results = new ArrayList<>();
            for (int i = 0; i < lanes.size(); i++) {
                List<PublishResult> lane = new ArrayList<>();
                for (int j = 0; j < lanes.get(i).records().size(); j++) {
                    lane.add(i == 0 && j == 0 ? new PublishResult.Failed(BROKER_DOWN)
                            : new PublishResult.NotSent("the broker was unavailable for an earlier record"));
                }
                results.add(lane);
            }
            return Mono.just(results);
        });
        CircuitBreaker breaker = RelayBreaker.create("lanes-down");

        List<Attempt<ClaimedOutboxMessage>> attempts = lanes(publisher, breaker, 64)
                .work(batch(rows("t", "a", "b", "c", "d"))).block(Duration.ofSeconds(5));

        assertThat(results(attempts)).hasSize(4).noneMatch(r -> r instanceof DispatchResult.Published);
        assertThat(results(attempts).getFirst()).isEqualTo(new DispatchResult.Failed(FailureKind.UNAVAILABLE,
                BROKER_DOWN.description()));
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).as("every lane of the hand-off").isEqualTo(4);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void aLanePublishedBeforeTheBrokerWentAwayIsASuccessfulCall() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(List.of(
                List.of(PublishResult.SENT, PublishResult.SENT),
                List.of(new PublishResult.Failed(BROKER_DOWN)),
                List.of(new PublishResult.NotSent("the broker was unavailable for an earlier record")))));
        CircuitBreaker breaker = RelayBreaker.create("lanes-half");

        lanes(publisher, breaker, 64).work(batch(rows("t", "a", "a", "b", "c"))).block(Duration.ofSeconds(5));

        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(1);
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isEqualTo(2);
    }

    @Test
    void lanesBeyondPublishConcurrencyGoInAFollowingHandOff() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(sentAll(lanes)));

        lanes(publisher, RelayBreaker.create("lanes-groups"), 2)
                .work(batch(rows("t", "a", "b", "c", "d", "e"))).block(Duration.ofSeconds(5));

        assertThat(publisher.handOffs).extracting(List::size).containsExactly(2, 2, 1);
    }

    @Test
    void aCancelledHandOffGivesItsPermissionsBack() {
        Sinks.One<List<List<PublishResult>>> never = Sinks.one();
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> never.asMono());
        CircuitBreaker breaker = RelayBreaker.create("lanes-cancel");
        breaker.transitionToOpenState();
        breaker.transitionToHalfOpenState(); // two permissions, as after a probe

        lanes(publisher, breaker, 64).work(batch(rows("t", "a", "b"))).subscribe().dispose();

        assertThat(breaker.tryAcquirePermission()).as("first permission back").isTrue();
        assertThat(breaker.tryAcquirePermission()).as("second permission back").isTrue();
        assertThat(breaker.getMetrics().getNumberOfFailedCalls() + breaker.getMetrics().getNumberOfSuccessfulCalls())
                .as("nothing recorded for the cancelled hand-off").isZero();
        assertThat(topicBreakers.circuitBreaker("topic:t").getMetrics().getNumberOfBufferedCalls()).isZero();
    }

    @Test
    void aHalfOpenBreakerTakesNoFurtherClaimWhileItsTrialHandOffWaits() {
        Sinks.One<List<List<PublishResult>>> acknowledged = Sinks.one();
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> acknowledged.asMono());
        CircuitBreaker breaker = RelayBreaker.create("lanes-trial");
        breaker.transitionToOpenState();
        breaker.transitionToHalfOpenState(); // two permissions, as after a probe
        PublishLanes lanes = lanes(publisher, breaker, 64);
        assertThat(lanes.available()).as("half-open, nothing in flight: one trial claim").isTrue();

        Mono<List<Attempt<ClaimedOutboxMessage>>> trial = lanes.work(batch(rows("t", "a", "b", "c", "d"))).cache();
        trial.subscribe();

        assertThat(publisher.handOffs).as("the trial hand-off: the two permitted lanes").hasSize(1);
        assertThat(publisher.handOffs.getFirst()).hasSize(2);
        assertThat(lanes.available()).as("no claim while the trial waits (its refused lanes would come back)")
                .isFalse();
        acknowledged.tryEmitValue(List.of(List.of(PublishResult.SENT), List.of(PublishResult.SENT)));
        assertThat(results(trial.block(Duration.ofSeconds(5))))
                .filteredOn(r -> r instanceof DispatchResult.NotAttempted).hasSize(2);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(lanes.available()).as("closed again: claims resume").isTrue();
    }

    @Test
    void recordsThatOnlyTimedOutMakeTheRelayAskTheClusterAndOpenItsBreakerWhenNoneAnswers() {
        SendFailure timeout = new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.TOPIC,
                PublishFailureCause.TIMEOUT, "no acknowledgement from Kafka within PT10S");
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream().map(lane -> lane
                .records().stream().<PublishResult>map(r -> new PublishResult.Failed(timeout)).toList()).toList()));
        CircuitBreaker breaker = RelayBreaker.create("lanes-timeouts");

        lanes(publisher, breaker, 64).work(batch(rows("a", "k"), rows("b", "l"))).block(Duration.ofSeconds(5));
        assertThat(breaker.getState()).as("the cluster answered: the topics failed, not the broker")
                .isEqualTo(CircuitBreaker.State.CLOSED);

        publisher.clusterUp = false;
        lanes(publisher, breaker, 64).work(batch(rows("a", "k"), rows("b", "l"))).block(Duration.ofSeconds(5));
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(publisher.clusterProbes).isEqualTo(2);
    }
}
