package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.Batches;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the {@link PublishLanes} tests share: a relay's lanes over a {@link ScriptedPublisher}, with their own topic
 * breakers, metrics and a clock the test moves; rows, batches and the results of a worked batch.
 */
abstract class PublishLanesFixture {

    static final SendFailure BROKER_DOWN = new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.BROKER,
            PublishFailureCause.OTHER, "NetworkException: no broker");
    static final Duration MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);

    final SettableClock clock = new SettableClock(Instant.parse("2026-03-01T12:00:00Z"));
    final DispatcherMetrics metrics = RelayFixture.metrics();
    final CircuitBreakerRegistry topicBreakers = CircuitBreakerRegistry.of(TopicBreakers.config());

    void failOnce(PublishLanes lanes, String topic) {
        lanes.work(batch(rows(topic, "x"))).block(Duration.ofSeconds(5));
    }

    double failures(String topic, String cause) {
        return metrics.registry().get("dispatcher.publish.failures").tag("topic", topic).tag("cause", cause)
                .counter().count();
    }

    static SendFailure unknown(String topic) {
        return new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC,
                "topic '" + topic + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION)");
    }

    static List<List<PublishResult>> sentAll(List<RecordPublisher.Lane> lanes) {
        return lanes.stream().map(lane -> lane.records().stream().<PublishResult>map(r -> PublishResult.SENT)
                .toList()).toList();
    }

    static List<DispatchResult> results(List<Attempt<ClaimedOutboxMessage>> attempts) {
        return attempts.stream().map(a -> ((Attempt.Dispatched<ClaimedOutboxMessage>) a).result()).toList();
    }

    PublishLanes lanes(RecordPublisher publisher, CircuitBreaker breaker, int publishConcurrency) {
        return lanes(publisher, breaker, publishConcurrency, Ordering.PER_KEY);
    }

    PublishLanes lanes(RecordPublisher publisher, CircuitBreaker breaker, int publishConcurrency,
            Ordering ordering) {
        RelaySettings base = RelayFixture.settings("lanes", ordering);
        RelaySettings settings = new RelaySettings(base.loop(), publishConcurrency, base.ordering(),
                MISSING_TOPIC_TIMEOUT, base.format(), base.deadLetterTopic());
        return new PublishLanes(publisher, breaker, topicBreakers, settings, metrics, clock);
    }

    static List<ClaimedOutboxMessage> rows(String topic, String... keys) {
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
    static BatchStrategy.Batch<ClaimedOutboxMessage> batch(List<ClaimedOutboxMessage>... parts) {
        List<ClaimedOutboxMessage> rows = new ArrayList<>();
        for (List<ClaimedOutboxMessage> part : parts) {
            rows.addAll(part);
        }
        return Batches.of(rows, false);
    }

    /** A clock the test moves. */
    static final class SettableClock extends Clock {
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
}
