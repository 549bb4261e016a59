package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RampUpTest {

    @Test
    void countsFromTheLaunchToTheEndOfTheFirstSecondAtFourFifthsOfTheLastHalfsRate() {
        // 3 s of start-up, a climb, then 1000/s; the partial last second (200) does not lower the steady rate
        long[] perSecond = {0, 0, 0, 100, 400, 700, 790, 800, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 200};

        RampUp ramp = RampUp.of(perSecond);

        assertThat(ramp.steadyPerS()).isEqualTo(1000.0);
        assertThat(ramp.firstWorkS()).isEqualTo(3);
        assertThat(ramp.timeTo80pctS()).isEqualTo(8); // second 7 (800) ends 8 s after the launch
    }

    @Test
    void aServiceAtSpeedFromItsFirstSecondOfWorkCountsOnlyItsStart() {
        RampUp ramp = RampUp.of(new long[] {0, 0, 0, 0, 0, 5000, 5100, 4900, 5000, 30});

        assertThat(ramp.timeTo80pctS()).isEqualTo(6);
    }

    @Test
    void aDipAfterReachingTheShareDoesNotMoveTheFirstTime() {
        RampUp ramp = RampUp.of(new long[] {0, 900, 100, 100, 1000, 1000, 1000, 1000, 1000});

        assertThat(ramp.timeTo80pctS()).isEqualTo(2);
    }

    @Test
    void aSpanOfTwoSecondsTakesItsMean() {
        RampUp ramp = RampUp.of(new long[] {0, 0, 600, 1000});

        assertThat(ramp.steadyPerS()).isEqualTo(800.0);
        assertThat(ramp.timeTo80pctS()).isEqualTo(4);
    }

    @Test
    void noWorkAtAllIsAnError() {
        assertThatThrownBy(() -> RampUp.of(new long[] {0, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no work");
    }
}
