package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.TopicOutage;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A topic's failures count only against that topic's breaker, whose open state holds the topic's rows back without a
 * hand-off until a probe sees the topic take records again (in an ordered lane, the rows after a held-back row are
 * not attempted); a topic missing for the missing-topic timeout dead-letters its rows.
 */
class PublishLanesTopicBreakersTest extends PublishLanesFixture {

    @Test
    void aMissingTopicCostsOnlyItsOwnRowsAndBreakerNeverTheRelays() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream().map(lane -> lane
                .records().stream().map(r -> r.topic().equals("gone") ? new PublishResult.Failed(unknown("gone"))
                        : PublishResult.SENT).toList()).toList()));
        CircuitBreaker breaker = RelayBreaker.create("lanes-missing");
        PublishLanes lanes = lanes(publisher, breaker, 64);

        List<DispatchResult> results = results(lanes.work(batch(rows("gone", "a", "b"), rows("orders", "c", "d")))
                .block(Duration.ofSeconds(5)));

        assertThat(results.subList(2, 4)).containsOnly(DispatchResult.PUBLISHED);
        assertThat(results.subList(0, 2)).containsOnly(new DispatchResult.Deferred(TopicOutage.MIN_DEFERRAL,
                unknown("gone").description() + ", missing for PT0S; dead-lettered after PT5M"));
        assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isZero();
        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(4);
        assertThat(topicBreakers.circuitBreaker("topic:gone").getState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(topicBreakers.circuitBreaker("topic:orders").getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(failures("gone", "unknown_topic")).isEqualTo(2);
    }

    @Test
    void whileATopicsBreakerIsOpenItsRowsAreHeldBackWithoutAHandOffAndItsProbeHalfOpensIt() {
        java.util.concurrent.atomic.AtomicBoolean missing = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<Optional<SendFailure>> answers = new CopyOnWriteArrayList<>(List.of(Optional.of(unknown("gone")),
                Optional.empty()));
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream().map(lane -> lane
                .records().stream().map(r -> r.topic().equals("gone") && missing.get()
                        ? new PublishResult.Failed(unknown("gone")) : PublishResult.SENT).toList()).toList()),
                topic -> Mono.just(answers.removeFirst()));
        PublishLanes lanes = lanes(publisher, RelayBreaker.create("lanes-open"), 64);
        CircuitBreaker gone = topicBreakers.circuitBreaker("topic:gone");
        failOnce(lanes, "gone");
        failOnce(lanes, "gone");
        assertThat(gone.getState()).isEqualTo(CircuitBreaker.State.OPEN);
        int handOffs = publisher.handOffs.size();

        clock.advance(Duration.ofSeconds(2));
        List<DispatchResult> held = results(lanes.work(batch(rows("gone", "a"), rows("orders", "b")))
                .block(Duration.ofSeconds(5)));

        assertThat(publisher.handOffs.subList(handOffs, publisher.handOffs.size()))
                .as("only the healthy topic was handed off")
                .flatExtracting(handOff -> handOff.stream().flatMap(lane -> lane.records().stream())
                        .map(OutboundRecord::topic).toList())
                .containsOnly("orders");
        assertThat(held.getFirst()).isInstanceOfSatisfying(DispatchResult.Deferred.class, d -> {
            assertThat(d.delay()).as("as long as the outage so far").isEqualTo(Duration.ofSeconds(2));
            assertThat(d.error()).startsWith(unknown("gone").description());
        });
        assertThat(held.get(1)).isEqualTo(DispatchResult.PUBLISHED);
        assertThat(gone.getState()).as("the probe said the topic is still missing").isEqualTo(CircuitBreaker.State.OPEN);

        missing.set(false); // the topic is created
        clock.advance(TopicBreakers.PROBE_INTERVAL);
        List<DispatchResult> probed = results(lanes.work(batch(rows("gone", "c"))).block(Duration.ofSeconds(5)));

        assertThat(probed).containsExactly(DispatchResult.PUBLISHED);
        assertThat(gone.getState()).as("half-opened by the probe, closed by the lane it let through")
                .isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(answers).as("one probe each time one was due").isEmpty();
        assertThat(failures("gone", "unknown_topic")).as("two failed, one held back").isEqualTo(3);
    }

    @Test
    void aTopicMissingForTheTimeoutDeadLettersItsRowsWithTheCause() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(lanes.stream().map(lane -> lane
                .records().stream().<PublishResult>map(r -> new PublishResult.Failed(unknown("gone"))).toList())
                .toList()), topic -> Mono.just(Optional.of(unknown(topic))));
        PublishLanes lanes = lanes(publisher, RelayBreaker.create("lanes-timeout"), 64);
        failOnce(lanes, "gone");
        for (int i = 0; i < 9; i++) { // seen missing throughout: never a gap longer than a deferral
            clock.advance(Duration.ofSeconds(30));
            failOnce(lanes, "gone");
        }
        clock.advance(Duration.ofSeconds(30)); // the timeout

        List<DispatchResult> probed = results(lanes.work(batch(rows("gone", "a"))).block(Duration.ofSeconds(5)));
        List<DispatchResult> between = results(lanes.work(batch(rows("gone", "b"))).block(Duration.ofSeconds(5)));

        assertThat(probed).as("its hand-off's own probe saw the topic missing").containsExactly(
                new DispatchResult.Failed(FailureKind.PERMANENT,
                        unknown("gone").description() + " for PT5M (the missing-topic timeout)"));
        assertThat(between).as("no fresh answer for this hand-off: back after the shortest deferral")
                .singleElement().isInstanceOfSatisfying(DispatchResult.Deferred.class,
                        d -> assertThat(d.delay()).isEqualTo(TopicOutage.MIN_DEFERRAL));
    }

    @Test
    void inAnOrderedLaneTheRowsAfterAHeldBackRowAreNeitherHandedOffNorAttempted() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(sentAll(lanes)));
        // across topics, one key's rows in two topics are one lane
        PublishLanes lanes = lanes(publisher, RelayBreaker.create("lanes-mixed"), 64, Ordering.PER_KEY_ACROSS_TOPICS);
        topicBreakers.circuitBreaker("topic:gone").transitionToOpenState();
        List<ClaimedOutboxMessage> run = new ArrayList<>(rows("orders", "k"));
        run.addAll(rows("gone", "k"));
        run.addAll(rows("orders", "k"));

        List<DispatchResult> results = results(lanes.work(batch(run)).block(Duration.ofSeconds(5)));

        assertThat(publisher.handOffs.getFirst()).singleElement()
                .satisfies(lane -> assertThat(lane.records()).hasSize(1));
        assertThat(results.get(0)).isEqualTo(DispatchResult.PUBLISHED);
        assertThat(results.get(1)).isInstanceOf(DispatchResult.Deferred.class);
        assertThat(results.get(2)).isInstanceOf(DispatchResult.NotAttempted.class);
    }

    @Test
    void perKeyLanesAreOneTopicAndKeyEachSoAKeysHeldBackRowInOneTopicHoldsNothingInAnother() {
        ScriptedPublisher publisher = new ScriptedPublisher(lanes -> Mono.just(sentAll(lanes)));
        PublishLanes lanes = lanes(publisher, RelayBreaker.create("lanes-per-key"), 64);
        topicBreakers.circuitBreaker("topic:gone").transitionToOpenState();
        List<ClaimedOutboxMessage> run = new ArrayList<>(rows("orders", "k"));
        run.addAll(rows("gone", "k"));
        run.addAll(rows("orders", "k"));

        List<Attempt<ClaimedOutboxMessage>> attempts = lanes.work(batch(run)).block(Duration.ofSeconds(5));
        java.util.Map<ClaimedOutboxMessage, DispatchResult> results = new java.util.IdentityHashMap<>();
        attempts.forEach(a -> results.put(a.message(), ((Attempt.Dispatched<ClaimedOutboxMessage>) a).result()));

        assertThat(publisher.handOffs.getFirst()).as("the key's run in the healthy topic, handed off whole")
                .singleElement().satisfies(lane -> assertThat(lane.records()).hasSize(2));
        assertThat(results).hasSize(3);
        assertThat(results.get(run.get(0))).isEqualTo(DispatchResult.PUBLISHED);
        assertThat(results.get(run.get(1))).isInstanceOf(DispatchResult.Deferred.class);
        assertThat(results.get(run.get(2))).as("not held behind the key's row in the other topic")
                .isEqualTo(DispatchResult.PUBLISHED);
    }
}
