package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PollPacingTest {

    private static final Duration MIN = Duration.ofMillis(200);
    private static final Duration MAX = Duration.ofSeconds(2);

    @Test
    void farFromTheEndItWaitsAQuarterOfWhatRemainsAtTheLastIntervalsRateUpToTheMaximum() {
        // 1,000 a second, 4,000 left: 4 s left, so 1 s
        assertThat(PollPacing.next(MIN, MAX, 6_000, 10_000, 200, MIN)).isEqualTo(Duration.ofSeconds(1));
        // 60 s left
        assertThat(PollPacing.next(MIN, MAX, 0, 60_000, 200, MIN)).isEqualTo(MAX);
    }

    @Test
    void nearTheEndOrWithoutProgressItWaitsTheMinimum() {
        assertThat(PollPacing.next(MIN, MAX, 9_900, 10_000, 200, MIN)).isEqualTo(MIN);
        assertThat(PollPacing.next(MIN, MAX, 5_000, 10_000, 0, MIN)).isEqualTo(MIN);
        assertThat(PollPacing.next(MIN, MAX, 10_000, 10_000, 100, MIN)).isEqualTo(MIN);
        assertThat(PollPacing.next(MIN, MAX, 5_000, 10_000, 100, Duration.ZERO)).isEqualTo(MIN);
    }
}
