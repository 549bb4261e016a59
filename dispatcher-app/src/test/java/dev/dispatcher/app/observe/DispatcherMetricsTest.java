package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code dispatcher.publish.failures} stays within its bound whatever topic names the rows carry: series for at most
 * {@link DispatcherMetrics#MAX_FAILURE_TOPICS} topics, the failures of further ones counted under {@code
 * topic="(other)"} so no failure goes uncounted, and the series of topics that stopped failing removed once new
 * topics need room.
 */
class DispatcherMetricsTest {

    private final ManualClock clock = new ManualClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DispatcherMetrics metrics = new DispatcherMetrics(registry, "default", clock);

    @Test
    void failuresOfAHundredThousandDistinctTopicsKeepTheFailureSeriesWithinTheirBoundAndAllCounted() {
        for (int i = 0; i < 100_000; i++) {
            metrics.publishFailures("orders." + i, PublishFailureCause.UNKNOWN_TOPIC, 1);
            metrics.publishFailures("orders." + i, PublishFailureCause.TIMEOUT, 2);
        }

        assertThat(registry.find("dispatcher.publish.failures").counters())
                .as("two causes of at most MAX_FAILURE_TOPICS topics, and the two of (other)")
                .hasSize(2 * DispatcherMetrics.MAX_FAILURE_TOPICS + 2);
        assertThat(metrics.failureTopics()).isEqualTo(DispatcherMetrics.MAX_FAILURE_TOPICS);
        assertThat(total()).as("every failure counted").isEqualTo(300_000);
        assertThat(count("orders.0", PublishFailureCause.TIMEOUT)).isEqualTo(2);
        assertThat(count(DispatcherMetrics.OTHER_TOPICS, PublishFailureCause.UNKNOWN_TOPIC))
                .isEqualTo(100_000 - DispatcherMetrics.MAX_FAILURE_TOPICS);
        assertThat(registry.find("dispatcher.publish.failures").tag("topic", "orders.99999").counters()).isEmpty();
    }

    @Test
    void theSeriesOfTopicsThatStoppedFailingMakeRoomForNewOnes() {
        for (int i = 0; i < DispatcherMetrics.MAX_FAILURE_TOPICS; i++) {
            metrics.publishFailures("old." + i, PublishFailureCause.UNKNOWN_TOPIC, 1);
        }
        clock.advance(DispatcherMetrics.FAILURE_TOPIC_IDLE.minus(Duration.ofMinutes(1)));
        metrics.publishFailures("old.0", PublishFailureCause.UNKNOWN_TOPIC, 1); // still failing
        clock.advance(Duration.ofMinutes(1));

        metrics.publishFailures("new", PublishFailureCause.AUTHORIZATION, 1);

        assertThat(count("new", PublishFailureCause.AUTHORIZATION)).isEqualTo(1);
        assertThat(count("old.0", PublishFailureCause.UNKNOWN_TOPIC)).isEqualTo(2);
        assertThat(registry.find("dispatcher.publish.failures").tag("topic", "old.1").counters())
                .as("removed from the registry").isEmpty();
        assertThat(registry.find("dispatcher.publish.failures").counters()).hasSize(2);
        assertThat(registry.find("dispatcher.publish.failures").tag("topic", DispatcherMetrics.OTHER_TOPICS)
                .counters()).isEmpty();
    }

    private double count(String topic, PublishFailureCause cause) {
        Counter counter = registry.find("dispatcher.publish.failures").tag("topic", topic).tag("cause", cause.tag())
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private double total() {
        return registry.find("dispatcher.publish.failures").counters().stream().mapToDouble(Counter::count).sum();
    }
}
