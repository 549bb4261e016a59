package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JitterTest {

    @ParameterizedTest
    @CsvSource({
        "full, FULL",
        "FULL, FULL",
        " Full , FULL",
        "decorrelated, DECORRELATED",
        "Decorrelated, DECORRELATED",
        "none, NONE",
        "NONE, NONE"
    })
    void parsesConfigurationValuesInAnyCase(String value, Jitter expected) {
        assertThat(Jitter.parse(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "random", "full-jitter", "equal"})
    void unknownValueIsRejectedNamingItAndTheAcceptedValues(String value) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Jitter.parse(value))
                .withMessageContaining("'" + value + "'")
                .withMessageContaining("full, decorrelated, none");
    }

    @Test
    void nullValueIsRejectedWithTheSameMessage() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Jitter.parse(null))
                .withMessageContaining("'null'");
    }
}
