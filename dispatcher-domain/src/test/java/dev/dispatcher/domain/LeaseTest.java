package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

class LeaseTest {

    private static final Instant UNTIL = Instant.parse("2026-03-01T12:00:30Z");
    private static final UUID TOKEN = new UUID(1, 2);

    @Test
    void leaseIsLiveStrictlyBeforeItsEnd() {
        Lease lease = new Lease("worker-a", TOKEN, UNTIL);

        assertThat(lease.isLiveAt(UNTIL.minusMillis(1))).isTrue();
        assertThat(lease.isLiveAt(UNTIL)).isFalse();
        assertThat(lease.isLiveAt(UNTIL.plusSeconds(1))).isFalse();
    }

    @Test
    void blankOwnerIsRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> new Lease(" ", TOKEN, UNTIL))
                .withMessageContaining("owner");
    }

    @Test
    void missingPartsAreRejectedByName() {
        assertThatNullPointerException().isThrownBy(() -> new Lease(null, TOKEN, UNTIL)).withMessageContaining("owner");
        assertThatNullPointerException().isThrownBy(() -> new Lease("w", null, UNTIL)).withMessageContaining("token");
        assertThatNullPointerException().isThrownBy(() -> new Lease("w", TOKEN, null)).withMessageContaining("until");
    }

    @Test
    void leasedSnapshotBecomesAStateHeldByItsToken() {
        LeasedMessage leased = new LeasedMessage(
                MessageId.of("m-1"), new Lease("worker-a", TOKEN, UNTIL), 4, 2, MessageStatus.RETRY_SCHEDULED, "k", 9);

        MessageState state = leased.asState();

        assertThat(state).isEqualTo(new MessageState(MessageId.of("m-1"), MessageStatus.RETRY_SCHEDULED, TOKEN, UNTIL, 4, 2));
        assertThat(state.isHeldBy(TOKEN)).isTrue();
        assertThat(state.isHeldBy(new UUID(9, 9))).isFalse();
        assertThat(state.isLiveLeaseOf(TOKEN, UNTIL.minusSeconds(1))).isTrue();
        assertThat(state.isLiveLeaseOf(TOKEN, UNTIL)).isFalse();
    }

    @Test
    void leasedMessageMustBeLive() {
        Lease lease = new Lease("worker-a", TOKEN, UNTIL);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> new LeasedMessage(MessageId.of("m-1"), lease, 1, 1, MessageStatus.DELIVERED, null, 1))
                .withMessageContaining("DELIVERED");
    }

    @Test
    void endedOrTerminalRowIsNotHeld() {
        MessageState ended = new MessageState(MessageId.of("m-1"), MessageStatus.PENDING, TOKEN, null, 1, 1);
        MessageState finished = new MessageState(MessageId.of("m-1"), MessageStatus.DELIVERED, TOKEN, UNTIL, 2, 1);

        assertThat(ended.isHeldBy(TOKEN)).isFalse();
        assertThat(finished.isHeldBy(TOKEN)).isFalse();
    }
}
