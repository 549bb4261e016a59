package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pacing of {@link HealthCallLimit}, on a clock the test moves. */
class HealthCallLimitTest {

    private static final long MS = Duration.ofMillis(1).toNanos();

    private final AtomicLong now = new AtomicLong(1_000_000 * MS);
    private final HealthCallLimit limit = new HealthCallLimit(new SecurityProblems(), now::get);

    @Test
    void aClientTakesItsBurstAtOnceThenOneCallATurnUpToASecondAhead() {
        long turn = 1000 / HealthCallLimit.CALLS_PER_SECOND;
        for (int i = 0; i < HealthCallLimit.BURST; i++) {
            assertThat(limit.turn("a")).as("call %d of the burst", i).isZero();
        }
        long expected = turn;
        for (; expected <= 1000; expected += turn) {
            assertThat(limit.turn("a")).isEqualTo(expected * MS);
        }
        assertThat(limit.refuses("a")).as("asked without taking a turn").isTrue();
        assertThat(limit.turn("a")).as("a turn more than a second away").isEqualTo(HealthCallLimit.REFUSED);
        assertThat(limit.turn("a")).as("a refusal takes no turn").isEqualTo(HealthCallLimit.REFUSED);
        assertThat(limit.refuses("b")).as("a client never seen").isFalse();

        now.addAndGet((expected - 900) * MS);
        assertThat(limit.refuses("a")).as("a turn within a second").isFalse();
        assertThat(limit.turn("a")).as("a refused call left the queue as it was").isEqualTo(900 * MS);
    }

    @Test
    void otherClientsAreNeverHeldBackByOne() {
        for (int i = 0; i < 100; i++) {
            limit.turn("flood");
        }
        assertThat(limit.turn("probe")).isZero();
        assertThat(limit.turn("probe")).isZero();
    }

    @Test
    void aQuietClientHasItsWholeBurstAgainOnceItsTurnsHaveRunOut() {
        for (int i = 0; i < 25; i++) {
            limit.turn("a");
        }
        now.addAndGet(Duration.ofSeconds(HealthCallLimit.BURST / HealthCallLimit.CALLS_PER_SECOND + 1).toNanos());
        for (int i = 0; i < HealthCallLimit.BURST; i++) {
            assertThat(limit.turn("a")).isZero();
        }
        assertThat(limit.turn("a")).isPositive();
    }

    @Test
    void onlyTheHealthEndpointsArePaced() {
        assertThat(HealthCallLimit.isHealth("/actuator/health")).isTrue();
        assertThat(HealthCallLimit.isHealth("/actuator/health/readiness")).isTrue();
        assertThat(HealthCallLimit.isHealth("/actuator/healthz")).isFalse();
        assertThat(HealthCallLimit.isHealth("/actuator/prometheus")).isFalse();
        assertThat(HealthCallLimit.isHealth("/v1/stats")).isFalse();
    }

    @Test
    void theAddressesKeptAreBounded() {
        for (int i = 0; i < HealthCallLimit.MAX_CLIENTS + 50; i++) {
            limit.turn("client-" + i);
        }
        assertThat(limit.clients()).isEqualTo(HealthCallLimit.MAX_CLIENTS);
    }
}
