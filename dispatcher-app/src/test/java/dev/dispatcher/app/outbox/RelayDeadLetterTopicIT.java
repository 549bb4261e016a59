package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.Invariants;
import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import io.micrometer.core.instrument.Counter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code dispatcher.relay.dead-letter-topic} on the shared broker (auto-creation off): a row that dead-letters is
 * published to its dead-letter topic (its record with the dead letter's headers) and turns {@code DEAD_LETTERED}
 * only once that topic acknowledged it; a missing dead-letter topic leaves the row dead-lettered in the table alone,
 * counted, while another topic's rows flow; a row dead-lettered for exhausted attempts carries them. Durable state
 * read through fresh connections.
 */
class RelayDeadLetterTopicIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aRecordTooLargeForItsTopicIsOnTheDeadLetterTopicBeforeItsRowIsDeadLettered() throws Exception {
        try (RelayFixture fx = new RelayFixture("dlt_large")) {
            String strict = "strict-" + fx.schema;
            fx.kafka.createTopic(strict, 1, Map.of("max.message.bytes", "2000"));
            fx.kafka.createTopic(strict + ".DLT", 1);
            UUID tooLarge = RelayPoisonAndRetryIT.insert(fx, strict, "s-key", new byte[20_000]);
            UUID follower = RelayPoisonAndRetryIT.insert(fx, strict, "s-key", "{\"small\":true}".getBytes());
            Sinks.Empty<Void> acknowledge = Sinks.empty();
            HeldDeadLetters publisher = new HeldDeadLetters(fx.publisher(), strict + ".DLT", acknowledge);
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("dlt-large-relay", 5).withDeadLetterTopic(template("{topic}.DLT")), publisher, metrics);

            awaitTrue("the dead letter handed to its topic", () -> publisher.handedOff.get() == 1);
            // the acknowledgement is held: the row waits for it, and its key behind it
            Invariants.holdFor("the dead letter and its key's next row held while the acknowledgement is",
                    Duration.ofMillis(500), Duration.ofMillis(100), () -> {
                RelayPoisonAndRetryIT.Row waiting = RelayPoisonAndRetryIT.row(fx, tooLarge);
                assertThat(waiting.status()).as("not dead-lettered before the topic acknowledged")
                        .isEqualTo("PENDING");
                assertThat(waiting.deadLetteredAt()).isNull();
                assertThat(RelayPoisonAndRetryIT.row(fx, follower).status()).as("its key waits behind it")
                        .isEqualTo("PENDING");
            });
            acknowledge.tryEmitEmpty();
            fx.awaitCount("status = 'DEAD_LETTERED' AND id = '" + tooLarge + "'", 1, WAIT);
            fx.awaitCount("status = 'DELIVERED' AND id = '" + follower + "'", 1, WAIT);

            RelayPoisonAndRetryIT.Row dead = RelayPoisonAndRetryIT.row(fx, tooLarge);
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).startsWith("permanent failure: RecordTooLargeException");
            List<ConsumerRecord<String, byte[]>> letters = fx.kafka.consume(strict + ".DLT", 1, WAIT);
            assertThat(letters).hasSize(1);
            ConsumerRecord<String, byte[]> letter = letters.getFirst();
            assertThat(letter.key()).isEqualTo("s-key");
            assertThat(letter.value()).isEqualTo(new byte[20_000]);
            assertThat(headers(letter)).containsEntry("message-id", tooLarge.toString())
                    .containsEntry("event-type", "TestEvent").containsEntry("content-type", "application/json")
                    .containsEntry("dispatcher-dead-letter-reason", dead.lastError())
                    .containsEntry("dispatcher-attempts", "1")
                    .containsEntry("dispatcher-original-topic", strict);
            assertThat(failures(metrics, strict + ".DLT")).isZero();
            assertThat(fx.kafka.consume(strict + ".DLT", 2, Duration.ofSeconds(2))).as("published once").hasSize(1);
        }
    }

    @Test
    void aMissingDeadLetterTopicLeavesTheRowsDeadLetteredInTheTableAloneCountedWhileAnotherTopicFlows()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("dlt_missing")) {
            String healthy = "healthy-" + fx.schema;
            String strict = "strict-" + fx.schema;
            fx.kafka.createTopic(healthy, 3);
            fx.kafka.createTopic(strict, 1, Map.of("max.message.bytes", "2000"));
            List<UUID> others = new ArrayList<>(fx.seed(healthy, 200, i -> "key-" + (i % 10)));
            List<UUID> poisons = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                poisons.add(RelayPoisonAndRetryIT.insert(fx, strict, "p-" + i, new byte[20_000]));
                others.addAll(fx.seed(healthy, 200, k -> "key-" + (k % 10)));
            }
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("dlt-missing-relay", 5).withDeadLetterTopic(template("{topic}.missing-DLT")),
                    fx.publisher(), metrics);

            fx.awaitCount("status = 'DEAD_LETTERED'", poisons.size(), WAIT);
            fx.awaitCount("status = 'DELIVERED'", others.size(), WAIT);
            // the wait reads the one series asserted below: a sum of every cause could end it early
            awaitTrue("each dead letter counted as an unknown topic",
                    () -> failures(metrics, strict + ".missing-DLT", PublishFailureCause.UNKNOWN_TOPIC)
                            == poisons.size());
            assertThat(failures(metrics, strict + ".missing-DLT")).as("counted for no other cause")
                    .isEqualTo(poisons.size());

            for (UUID poison : poisons) {
                RelayPoisonAndRetryIT.Row row = RelayPoisonAndRetryIT.row(fx, poison);
                assertThat(row.attempts()).isEqualTo(1);
                assertThat(row.lastError()).startsWith("permanent failure: RecordTooLargeException");
            }
            assertThat(failures(metrics, strict + ".missing-DLT", PublishFailureCause.UNKNOWN_TOPIC))
                    .isEqualTo(poisons.size());
            assertThat(failures(metrics, healthy)).as("the healthy topic never failed").isZero();
            assertThat(RelayCompetingIT.consumeAll(fx, healthy)).hasSize(others.size());
            // rows written after the dead letters still flow: nothing of the missing topic held the relay up
            List<UUID> later = fx.seed(healthy, 100, i -> "key-" + (i % 10));
            fx.awaitCount("status = 'DELIVERED'", others.size() + later.size(), Duration.ofSeconds(10));
        }
    }

    @Test
    void aRowWhoseAttemptsRanOutIsOnTheDeadLetterTopicInTheRelaysFormatWithItsAttempts() throws Exception {
        try (RelayFixture fx = new RelayFixture("dlt_exhaust")) {
            String topic = "exhaust-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            fx.kafka.createTopic(topic + ".DLT", 1);
            UUID flaky = RelayPoisonAndRetryIT.insert(fx, topic, "flaky-key", "{\"flaky\":true}".getBytes());
            List<UUID> others = fx.seed(topic, 100, i -> "key-" + (i % 10));
            SendFailure transientFailure = new SendFailure(FailureKind.TRANSIENT, SendFailure.Scope.RECORD,
                    PublishFailureCause.OTHER, "injected");
            FaultPublisher publisher = FaultPublisher.key(fx.publisher(), topic, "flaky-key", transientFailure);
            URI source = URI.create("/shop/orders");
            RelaySettings settings = settings("dlt-exhaust-relay", 3)
                    .withFormat(RecordFormat.cloudEventsStructured(source))
                    .withDeadLetterTopic(template("{topic}.DLT"));
            fx.relay(settings, publisher, RelayFixture.metrics());

            fx.awaitCount("status = 'DEAD_LETTERED'", 1, WAIT);
            fx.awaitCount("status = 'DELIVERED'", others.size(), WAIT);
            RelayPoisonAndRetryIT.Row dead = RelayPoisonAndRetryIT.row(fx, flaky);
            assertThat(dead.attempts()).isEqualTo(3);
            assertThat(publisher.refused.get()).isEqualTo(3);

            List<ConsumerRecord<String, byte[]>> letters = fx.kafka.consume(topic + ".DLT", 1, WAIT);
            assertThat(letters).hasSize(1);
            ConsumerRecord<String, byte[]> letter = letters.getFirst();
            assertThat(letter.key()).isEqualTo("flaky-key");
            assertThat(headers(letter)).containsEntry("dispatcher-attempts", "3")
                    .containsEntry("dispatcher-dead-letter-reason", "gave up after 3 attempts: injected")
                    .containsEntry("dispatcher-original-topic", topic)
                    .containsEntry("message-id", flaky.toString())
                    .containsEntry("content-type", "application/cloudevents+json; charset=UTF-8");
            try (CloudEventDeserializer events = new CloudEventDeserializer()) {
                CloudEvent event = events.deserialize(letter.topic(), letter.headers(), letter.value());
                assertThat(event.getId()).isEqualTo(flaky.toString());
                assertThat(event.getSource()).isEqualTo(source);
                assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"flaky\":true}");
            }
        }
    }

    /** Dead-lettered after {@code maxAttempts} failed attempts, 100 and 200 ms apart; a fast poll. */
    private static RelaySettings settings(String workerId, int maxAttempts) {
        return new RelaySettings(workerId, 100, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(50),
                Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(100), Duration.ofMillis(400), 2.0, Jitter.NONE,
                        maxAttempts, new SplittableRandom(7)),
                Duration.ofSeconds(20));
    }

    private static DeadLetterTopic template(String template) {
        return DeadLetterTopic.of(template).orElseThrow();
    }

    /**
     * Publishes through {@code delegate}, but passes on the results of a hand-off to {@code deadLetters} only once
     * {@code acknowledge} completes; counts those hand-offs. The relay's lanes go through untouched.
     */
    private static final class HeldDeadLetters implements RecordPublisher {

        private final RecordPublisher delegate;
        private final String deadLetters;
        private final Sinks.Empty<Void> acknowledge;
        final AtomicInteger handedOff = new AtomicInteger();

        HeldDeadLetters(RecordPublisher delegate, String deadLetters, Sinks.Empty<Void> acknowledge) {
            this.delegate = delegate;
            this.deadLetters = deadLetters;
            this.acknowledge = acknowledge;
        }

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            if (records.stream().noneMatch(r -> r.topic().equals(deadLetters))) {
                return delegate.publish(records, ordered, pace);
            }
            return delegate.publish(records, ordered, pace)
                    .doOnNext(results -> handedOff.incrementAndGet())
                    .delayUntil(results -> acknowledge.asMono());
        }

        @Override
        public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
            return delegate.publishAll(lanes, pace);
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return delegate.probe(timeout);
        }

        @Override
        public Mono<Optional<SendFailure>> checkTopic(String topic) {
            return delegate.checkTopic(topic);
        }

        @Override
        public void close() {
            // the fixture closes the delegate
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        await(what).atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }

    private static double failures(DispatcherMetrics metrics, String topic) {
        return metrics.registry().find("dispatcher.publish.failures").tag("topic", topic).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static double failures(DispatcherMetrics metrics, String topic, PublishFailureCause cause) {
        return metrics.registry().find("dispatcher.publish.failures").tag("topic", topic)
                .tag("cause", cause.tag()).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static Map<String, String> headers(ConsumerRecord<String, byte[]> r) {
        Map<String, String> headers = new HashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }
}
