package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageIdTest {

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", " \n "})
    void blankIdIsRejectedNamingTheValue(String blank) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> MessageId.of(blank))
                .withMessageContaining("'" + blank + "'");
    }

    @Test
    void nullIdIsRejected() {
        assertThatNullPointerException().isThrownBy(() -> MessageId.of((String) null));
        assertThatNullPointerException().isThrownBy(() -> MessageId.of((UUID) null));
    }

    @Test
    void idLongerThanMaxLengthIsRejected() {
        String tooLong = "x".repeat(MessageId.MAX_LENGTH + 1);

        assertThatIllegalArgumentException().isThrownBy(() -> MessageId.of(tooLong))
                .withMessageContaining(String.valueOf(MessageId.MAX_LENGTH));
    }

    @Test
    void idOfExactlyMaxLengthIsAccepted() {
        String longest = "x".repeat(MessageId.MAX_LENGTH);

        assertThat(MessageId.of(longest).value()).isEqualTo(longest);
    }

    @Test
    void uuidRoundTripsThroughTheId() {
        UUID uuid = UUID.fromString("0b9a4e5c-8f1d-4c3e-9a7b-2f6d1e0c5a43");

        MessageId id = MessageId.of(uuid);

        assertThat(id.asUuid()).isEqualTo(uuid);
        assertThat(id.value()).isEqualTo("0b9a4e5c-8f1d-4c3e-9a7b-2f6d1e0c5a43");
        assertThat(id).hasToString(uuid.toString()).isEqualTo(MessageId.of(uuid.toString()));
    }

    @Test
    void nonUuidTextIdIsAcceptedButHasNoUuid() {
        MessageId id = MessageId.of("order-42");

        assertThat(id.value()).isEqualTo("order-42");
        assertThatIllegalArgumentException().isThrownBy(id::asUuid);
    }

    @Test
    void idsOrderByTheirText() {
        assertThat(MessageId.of("a")).isLessThan(MessageId.of("b"));
        assertThat(MessageId.of("b").compareTo(MessageId.of("b"))).isZero();
    }
}
