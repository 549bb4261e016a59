package dev.dispatcher.app;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.awaitility.core.ThrowingRunnable;

/**
 * A state that must hold for a while, checked with Awaitility like every wait of the tests: {@code check} runs at
 * once and every {@code every} for {@code period}, and the first check that throws fails the test at once, naming
 * {@code what} with the check's own failure as the cause. (Awaitility's {@code during} alone would start its period
 * again after a failed check, so a state broken for a moment and then restored would pass.)
 */
public final class Invariants {

    private Invariants() {
    }

    public static void holdFor(String what, Duration period, Duration every, ThrowingRunnable check) {
        await(what).during(period).atMost(period.multipliedBy(2).plusSeconds(30)).pollDelay(Duration.ZERO)
                .pollInterval(every).failFast(what + ": broken", check).until(() -> true);
    }
}
