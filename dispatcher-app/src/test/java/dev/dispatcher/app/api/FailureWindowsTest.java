package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailureWindowsTest {

    private final ManualClock clock = new ManualClock();
    private final FailureWindows windows = new FailureWindows(3, Duration.ofMinutes(1), 100, clock);

    @Test
    void aKeyIsBlockedOnceItsWindowHoldsTheLimitUntilTheWindowEnds() {
        windows.fail("10.0.0.1");
        windows.fail("10.0.0.1");
        assertThat(windows.blockedFor("10.0.0.1")).isZero();

        clock.advance(Duration.ofSeconds(20));
        windows.fail("10.0.0.1");
        assertThat(windows.blockedFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(40));
        assertThat(windows.blockedFor("10.0.0.2")).as("another key").isZero();

        clock.advance(Duration.ofSeconds(39));
        assertThat(windows.blockedFor("10.0.0.1")).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(windows.blockedFor("10.0.0.1")).as("the window opened at the first failure has ended").isZero();
    }

    @Test
    void aFailureAfterTheWindowOpensAFreshOne() {
        for (int i = 0; i < 3; i++) {
            windows.fail("alice");
        }
        clock.advance(Duration.ofMinutes(2));
        windows.fail("alice");
        windows.fail("alice");

        assertThat(windows.blockedFor("alice")).isZero();
        windows.fail("alice");
        assertThat(windows.blockedFor("alice")).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void endedWindowsAreDroppedAndTheTableNeverHoldsMoreThanItsBound() {
        for (int i = 0; i < 1000; i++) {
            windows.fail("attacker-chosen-" + i);
            assertThat(windows.size()).isLessThanOrEqualTo(100);
        }
        assertThat(windows.blockedFor("attacker-chosen-0")).as("evicted, eldest first").isZero();
        assertThat(windows.size()).isEqualTo(100);

        clock.advance(Duration.ofMinutes(1));
        windows.fail("late");
        assertThat(windows.size()).isEqualTo(1);
    }

    @Test
    void aFloodOfNewKeysNeverDisplacesAWindowWithMoreFailures() {
        windows.fail("guesser");
        windows.fail("guesser");
        windows.fail("patient");
        windows.fail("patient");
        windows.fail("patient");
        for (int i = 0; i < 10_000; i++) {
            windows.fail("churned-" + i);
        }
        assertThat(windows.size()).isEqualTo(100);

        windows.fail("guesser");
        assertThat(windows.blockedFor("guesser")).as("its count kept through the churn")
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(windows.blockedFor("patient")).as("a blocked key too").isEqualTo(Duration.ofMinutes(1));
        assertThat(windows.blockedFor("churned-0")).as("a one-failure key made room").isZero();
    }

    @Test
    void aClearedKeyStartsAfresh() {
        windows.fail("alice");
        windows.fail("alice");
        windows.clear("alice");
        windows.fail("alice");
        windows.fail("alice");
        assertThat(windows.blockedFor("alice")).isZero();
        assertThat(windows.size()).isEqualTo(1);
    }

    @Test
    void longKeysAreCutSoTheyCostBoundedMemory() {
        String prefix = "x".repeat(FailureWindows.MAX_KEY_LENGTH);
        for (int i = 0; i < 3; i++) {
            windows.fail(prefix + "-" + "y".repeat(10_000) + i);
        }
        assertThat(windows.size()).isEqualTo(1);
        assertThat(windows.blockedFor(prefix + "anything")).isPositive();
    }
}
