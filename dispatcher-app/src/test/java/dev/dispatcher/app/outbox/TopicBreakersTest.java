package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.observe.TopicTable;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The relay's per-topic breakers are bounded: rows for a hundred thousand distinct (missing) topics leave at most
 * {@link TopicTable#DEFAULT_CAPACITY} breakers in the shared registry and in the relay, and the failure series within
 * theirs, each breaker dropped counted in {@code dispatcher.topics.evicted{table=topic_breakers}}, while a topic that
 * keeps failing keeps its breaker and its outage throughout.
 */
class TopicBreakersTest {

    private static final Duration MISSING_TOPIC_TIMEOUT = Duration.ofMinutes(5);

    private final ManualClock clock = new ManualClock();
    private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.of(TopicBreakers.config());
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final TopicBreakers breakers = new TopicBreakers(registry, new NoPublisher(), MISSING_TOPIC_TIMEOUT,
            new DispatcherMetrics(meters, "default", clock), clock);

    @Test
    void aHundredThousandDistinctTopicsLeaveTheBreakersWithinTheirBoundAndAFailingTopicKeepsItsOutage() {
        CircuitBreaker hot = breakers.breaker("hot");
        DispatchResult first = fail("hot");

        for (int i = 0; i < 100_000; i++) {
            String topic = "orders." + i;
            breakers.breaker(topic);
            fail(topic);
            if (i % 1_000 == 0) {
                assertThat(breakers.breaker("hot")).as("a topic in use keeps its breaker").isSameAs(hot);
                fail("hot");
            }
            clock.advance(Duration.ofMillis(1));
        }

        assertThat(registry.getAllCircuitBreakers()).hasSizeLessThanOrEqualTo(TopicTable.DEFAULT_CAPACITY);
        assertThat(breakers.tracked()).isLessThanOrEqualTo(TopicTable.DEFAULT_CAPACITY);
        assertThat(registry.find("topic:orders.0")).as("dropped from the shared registry too").isEmpty();
        assertThat(registry.find("topic:orders.99999")).isPresent();
        assertThat(evicted("topic_breakers")).as("every breaker dropped to stay within the bound is counted")
                .isEqualTo(100_001 - breakers.tracked());
        assertThat(evicted("publish_failure_counters")).as("failures of topics beyond the series' bound counted")
                .isPositive();
        assertThat(meters.find("dispatcher.publish.failures").counters())
                .hasSizeLessThanOrEqualTo(DispatcherMetrics.MAX_FAILURE_TOPICS + 1);
        assertThat(first).isInstanceOf(DispatchResult.Deferred.class);
        assertThat(fail("hot")).as("the outage that began before the others came, 100 s ago")
                .isInstanceOfSatisfying(DispatchResult.Deferred.class,
                        d -> assertThat(d.error()).contains("missing for PT1M40S"));
    }

    /** {@code dispatcher.topics.evicted} of {@code table}, every reason. */
    private long evicted(String table) {
        return (long) meters.get(TopicTable.EVICTED_METRIC).tag("table", table).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private DispatchResult fail(String topic) {
        SendFailure missing = new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.TOPIC,
                PublishFailureCause.UNKNOWN_TOPIC, "topic '" + topic + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION)");
        return breakers.result(topic, new PublishResult.Failed(missing), clock.instant(), Set.of());
    }

    /** Never asked in this test: nothing probes. */
    private static final class NoPublisher implements RecordPublisher {

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return Mono.error(new AssertionError("not expected"));
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
