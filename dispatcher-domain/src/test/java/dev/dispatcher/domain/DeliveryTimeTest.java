package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.domain.DeliveryTime.InvalidDeliveryTimeException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DeliveryTimeTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration MAX = Duration.ofHours(1);

    @Test
    void neitherFormMeansNoDelay() {
        assertThat(DeliveryTime.of(null, null).delayMillis(NOW, MAX)).isZero();
    }

    @Test
    void aDelayIsKeptAndRoundedUpToWholeMilliseconds() {
        assertThat(DeliveryTime.of(null, Duration.ofSeconds(10)).delayMillis(NOW, MAX)).isEqualTo(10_000);
        assertThat(DeliveryTime.of(null, Duration.ofNanos(1_000_001)).delayMillis(NOW, MAX)).isEqualTo(2);
        assertThat(DeliveryTime.of(null, MAX).delayMillis(NOW, MAX)).isEqualTo(MAX.toMillis());
    }

    @Test
    void anInstantBecomesTheDelayFromTheWritersClock() {
        assertThat(DeliveryTime.of(NOW.plusSeconds(90), null).delayMillis(NOW, MAX)).isEqualTo(90_000);
        assertThat(DeliveryTime.of(NOW.plus(MAX), null).delayMillis(NOW, MAX)).isEqualTo(MAX.toMillis());
    }

    @Test
    void anInstantSlightlyInThePastMeansNow() {
        assertThat(DeliveryTime.of(NOW.minus(DeliveryTime.MAX_PAST_SKEW), null).delayMillis(NOW, MAX)).isZero();
    }

    @Test
    void anInstantFurtherInThePastIsRejectedNamingDeliverAt() {
        assertThatThrownBy(() -> DeliveryTime.of(NOW.minus(DeliveryTime.MAX_PAST_SKEW).minusMillis(1), null)
                .delayMillis(NOW, MAX))
                .isInstanceOfSatisfying(InvalidDeliveryTimeException.class,
                        e -> assertThat(e.field()).isEqualTo("deliverAt"))
                .hasMessageContaining("in the past");
    }

    @Test
    void beyondTheMaximumIsRejectedNamingTheField() {
        assertThatThrownBy(() -> DeliveryTime.of(NOW.plus(MAX).plusMillis(1), null).delayMillis(NOW, MAX))
                .isInstanceOfSatisfying(InvalidDeliveryTimeException.class,
                        e -> assertThat(e.field()).isEqualTo("deliverAt"))
                .hasMessageContaining("at most PT1H");
        assertThatThrownBy(() -> DeliveryTime.of(null, MAX.plusMillis(1)).delayMillis(NOW, MAX))
                .isInstanceOfSatisfying(InvalidDeliveryTimeException.class,
                        e -> assertThat(e.field()).isEqualTo("delay"))
                .hasMessageContaining("at most PT1H");
    }

    @Test
    void aNegativeDelayIsRejected() {
        assertThatThrownBy(() -> DeliveryTime.of(null, Duration.ofSeconds(-1)).delayMillis(NOW, MAX))
                .isInstanceOf(InvalidDeliveryTimeException.class)
                .hasMessageContaining("negative");
    }

    @Test
    void bothFormsAtOnceAreRejected() {
        assertThatThrownBy(() -> DeliveryTime.of(NOW, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidDeliveryTimeException.class)
                .hasMessageContaining("not both");
    }
}
