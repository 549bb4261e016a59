package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.TopicOutage;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A batch's lanes go to the publisher in one hand-off ({@link RecordPublisher#publishAll}); each lane is one call of
 * the relay-wide breaker, failed only when it met the broker unavailable (or was left unpublished because another
 * lane did); a topic's failures count only against that topic's breaker, whose open state holds the topic's rows
 * back without a hand-off until a probe sees the topic take records again; a topic missing for the missing-topic
 * timeout dead-letters its rows; records that only timed out make the relay ask the cluster itself.
 */
class PublishLanesBreakerTest {

    private static final SendFailure BROKER_DOWN = new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.BROKER,
            PublishFailureCause.OTHER, "NetworkException: no broker");
    private static final Duration MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);

    private final SettableClock clock = new SettableClock(Instant.parse("2026-03-01T12:00:00Z"));
    private final DispatcherMetrics metrics = RelayFixture.metrics();
    private final CircuitBreakerRegistry topicBreakers = CircuitBreakerRegistry.of(TopicBreakers.config());

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

    private void failOnce(PublishLanes lanes, String topic) {
        lanes.work(batch(rows(topic, "x"))).block(Duration.ofSeconds(5));
    }

    private double failures(String topic, String cause) {
        return metrics.registry().get("dispatcher.publish.failures").tag("topic", topic).tag("cause", cause)
                .counter().count();
    }

    private static SendFailure unknown(String topic) {
        return new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC,
                "topic '" + topic + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION)");
    }

    private static List<List<PublishResult>> sentAll(List<RecordPublisher.Lane> lanes) {
        return lanes.stream().map(lane -> lane.records().stream().<PublishResult>map(r -> PublishResult.SENT)
                .toList()).toList();
    }

    private static List<DispatchResult> results(List<Attempt<ClaimedOutboxMessage>> attempts) {
        return attempts.stream().map(a -> ((Attempt.Dispatched<ClaimedOutboxMessage>) a).result()).toList();
    }

    private PublishLanes lanes(RecordPublisher publisher, CircuitBreaker breaker, int publishConcurrency) {
        return lanes(publisher, breaker, publishConcurrency, Ordering.PER_KEY);
    }

    private PublishLanes lanes(RecordPublisher publisher, CircuitBreaker breaker, int publishConcurrency,
            Ordering ordering) {
        RelaySettings base = RelayFixture.settings("lanes", ordering);
        RelaySettings settings = new RelaySettings(base.loop(), publishConcurrency, base.ordering(),
                MISSING_TOPIC_TIMEOUT, base.format(), base.deadLetterTopic());
        return new PublishLanes(publisher, breaker, topicBreakers, settings, metrics, clock);
    }

    private static List<ClaimedOutboxMessage> rows(String topic, String... keys) {
        List<ClaimedOutboxMessage> rows = new ArrayList<>();
        for (String key : keys) {
            LeasedMessage leased = new LeasedMessage(MessageId.of(UUID.randomUUID()),
                    new Lease("lanes", UUID.randomUUID(), Instant.now().plusSeconds(30)), 0, 1, MessageStatus.PENDING,
                    key, SEQ.incrementAndGet());
            rows.add(new ClaimedOutboxMessage(leased, topic, "e", new byte[0], "application/json", Map.of(), null, null,
                    Instant.now(), false));
        }
        return rows;
    }

    private static final java.util.concurrent.atomic.AtomicLong SEQ = new java.util.concurrent.atomic.AtomicLong();

    @SafeVarargs
    private static BatchStrategy.Batch<ClaimedOutboxMessage> batch(List<ClaimedOutboxMessage>... parts) {
        List<ClaimedOutboxMessage> rows = new ArrayList<>();
        for (List<ClaimedOutboxMessage> part : parts) {
            rows.addAll(part);
        }
        return new BatchStrategy.Batch<>() {
            @Override
            public List<ClaimedOutboxMessage> messages() {
                return rows;
            }

            @Override
            public boolean stopping() {
                return false;
            }

            @Override
            public void written(ClaimedOutboxMessage message) {
            }
        };
    }

    /** A clock the test moves. */
    private static final class SettableClock extends Clock {
        private volatile Instant now;

        SettableClock(Instant now) {
            this.now = now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    /** Answers each hand-off and topic check with a script and records the lanes it was given. */
    private static final class ScriptedPublisher implements RecordPublisher {

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
}
