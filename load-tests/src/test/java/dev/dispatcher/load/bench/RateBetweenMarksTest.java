package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RateBetweenMarksTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void eachMarksTimeIsInterpolatedBetweenTheObservationsAroundIt() {
        RateBetweenMarks rate = new RateBetweenMarks(250, 750);
        rate.observe(0, 0);
        rate.observe(100, SECOND); // slow start: 100/s
        rate.observe(500, 2 * SECOND); // 250 passed at 1.375 s
        assertThat(rate.perSecond()).isEmpty();
        rate.observe(1_000, 3 * SECOND); // 750 passed at 2.5 s
        assertThat(rate.perSecond().getAsDouble()).isCloseTo(500 / 1.125, within(1e-6));
    }

    @Test
    void bothMarksPassedBetweenTwoObservationsGiveThatIntervalsRate() {
        RateBetweenMarks rate = new RateBetweenMarks(250, 750);
        rate.observe(0, 0);
        rate.observe(1_000, 2 * SECOND);
        assertThat(rate.perSecond().getAsDouble()).isCloseTo(500.0, within(1e-6));
    }

    @Test
    void aCountThatDoesNotGrowOrAMarkAlreadyPassedAtTheFirstObservationLeavesItEmpty() {
        RateBetweenMarks still = new RateBetweenMarks(250, 750);
        still.observe(0, 0);
        still.observe(0, SECOND);
        assertThat(still.perSecond()).isEmpty();

        RateBetweenMarks late = new RateBetweenMarks(250, 750);
        late.observe(300, 0); // first seen past the first mark: its time is unknown
        late.observe(1_000, SECOND);
        assertThat(late.perSecond()).isEmpty();
    }

    @Test
    void marksMustBeOrdered() {
        assertThatThrownBy(() -> new RateBetweenMarks(750, 250)).isInstanceOf(IllegalArgumentException.class);
    }
}
