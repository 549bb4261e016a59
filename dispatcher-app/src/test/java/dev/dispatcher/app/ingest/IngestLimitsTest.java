package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestLimitsTest {

    @Test
    void aPayloadLimitThatFitsTheProducerRequestIsAccepted() {
        assertThat(IngestLimits.checked(1_048_576, 500, Map.of("max.request.size", "1081344")).maxPayloadBytes())
                .isEqualTo(1_048_576);
    }

    @Test
    void aPayloadLimitOverTheProducerRequestSizeFailsNamingBothProperties() {
        assertThatIllegalStateException()
                .isThrownBy(() -> IngestLimits.checked(1_048_576, 500, Map.of()))
                .withMessageContaining("dispatcher.ingest.max-payload-size must be at most")
                .withMessageContaining("max.request.size (1048576 bytes)")
                .withMessageContaining("but was 1048576 bytes");
    }

    @Test
    void aNonNumericRequestSizeIsReported() {
        assertThatIllegalStateException()
                .isThrownBy(() -> IngestLimits.checked(1024, 500, Map.of("max.request.size", "lots")))
                .withMessageContaining("max.request.size");
    }

    @Test
    void aQueuedBytesBoundBelowTheLargestBodyFailsNamingTheProperty() {
        IngestLimits limits = IngestLimits.checked(1_048_576, 500, Map.of("max.request.size", "1081344"));
        assertThat(limits.budget(64L * 1024 * 1024, 512, 128)).isNotNull();
        assertThatIllegalStateException()
                .isThrownBy(() -> limits.budget(8L * 1024 * 1024, 512, 128))
                .withMessage("dispatcher.ingest.max-queued-bytes must be at least the largest request body (8 x"
                        + " dispatcher.ingest.max-payload-size + 65536 bytes = 8454144 bytes), but was 8388608 bytes;"
                        + " raise it or lower dispatcher.ingest.max-payload-size");
    }
}
