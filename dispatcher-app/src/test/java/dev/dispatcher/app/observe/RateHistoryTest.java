package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateHistoryTest {

    @Test
    void keepsTheLastSpanOfSamplesOldestFirst() {
        RateHistory history = new RateHistory(Duration.ofSeconds(5), Duration.ofSeconds(15));
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < 5; i++) {
            history.record(new RateHistory.Sample(start.plusSeconds(5L * i), i, 0, i * 10L, 0));
        }
        assertThat(history.samples()).extracting(RateHistory.Sample::backlog).containsExactly(20L, 30L, 40L);
    }

    @Test
    void anIntervalLongerThanTheSpanIsRefused() {
        assertThatThrownBy(() -> new RateHistory(Duration.ofMinutes(1), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
