package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/** One example per outcome of {@link TransitionClassifier}, plus the retry after an ambiguous commit. */
class TransitionClassifierTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final MessageId ID = MessageId.of(new UUID(0xabc, 1));
    private static final UUID OUR_TOKEN = new UUID(1, 1);
    private static final UUID THEIR_TOKEN = new UUID(2, 2);

    private static final LeasedMessage OURS = new LeasedMessage(
            ID, new Lease("worker-a", OUR_TOKEN, NOW.plusSeconds(20)), 3, 1, MessageStatus.PENDING, null, 7);
    /** The row as we leased it: live, our token, lease running. */
    private static final MessageState LEASED = OURS.asState();

    private static MessageState row(MessageStatus status, UUID token, Instant until, long version) {
        return new MessageState(ID, status, token, until, version, 1);
    }

    private static TransitionResult classify(
            Transition requested, MessageState snapshot, MessageState current, MessageState written) {
        return TransitionClassifier.classify(Queue.OUTBOX, requested, OURS, Optional.ofNullable(snapshot),
                Optional.ofNullable(current), Optional.ofNullable(written), NOW);
    }

    @Test
    void guardedWriteThatReturnedARowIsApplied() {
        MessageState delivered = row(MessageStatus.DELIVERED, OUR_TOKEN, null, 4);

        TransitionResult result = classify(new Transition.Deliver(), LEASED, LEASED, delivered);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(result.entry()).isEqualTo(delivered);
        assertThat(result.isApplied()).isTrue();
        assertThat(result.durableStatusTag()).isEqualTo("delivered");
    }

    @Test
    void liveRowReclaimedByAnotherWorkerBeforeTheStatementIsStaleLease() {
        MessageState reclaimed = row(MessageStatus.PENDING, THEIR_TOKEN, NOW.plusSeconds(25), 3);

        TransitionResult result = classify(new Transition.Deliver(), reclaimed, reclaimed, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(result.entry()).isEqualTo(reclaimed);
        assertThat(result.isApplied()).isFalse();
        assertThat(result.durableStatusTag()).isEqualTo("pending");
    }

    @Test
    void expiredLeaseReclaimedDuringTheStatementIsStaleLeaseNotConcurrencyLost() {
        MessageState expired = row(MessageStatus.PENDING, OUR_TOKEN, NOW.minusSeconds(1), 3);
        MessageState reclaimed = row(MessageStatus.PENDING, THEIR_TOKEN, NOW.plusSeconds(30), 3);

        TransitionResult result = classify(new Transition.Release(), expired, reclaimed, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(result.entry()).isEqualTo(reclaimed);
    }

    @Test
    void rowFinishedByAnotherWorkerBeforeTheStatementIsTerminal() {
        MessageState deliveredByThem = row(MessageStatus.DELIVERED, THEIR_TOKEN, null, 4);

        TransitionResult result = classify(new Transition.ScheduleRetry(Duration.ofSeconds(5), "timeout"),
                deliveredByThem, deliveredByThem, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
        assertThat(result.entry()).isEqualTo(deliveredByThem);
        assertThat(result.durableStatusTag()).isEqualTo("delivered");
    }

    @Test
    void operatorDeadLetterCommittedWhileOurLiveLeaseWasBeingWrittenIsConcurrencyLost() {
        MessageState deadLetteredByOperator = row(MessageStatus.DEAD_LETTERED, null, null, 4);

        TransitionResult result = classify(new Transition.Deliver(), LEASED, deadLetteredByOperator, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.CONCURRENCY_LOST);
        assertThat(result.entry()).isEqualTo(deadLetteredByOperator);
        assertThat(result.durableStatusTag()).isEqualTo("dead_lettered");
    }

    @Test
    void rowDeletedDuringTheStatementIsMissingWithOurLeasedSnapshot() {
        TransitionResult result = classify(new Transition.Deliver(), LEASED, null, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(OURS.asState());
        assertThat(result.durableStatusTag()).isEqualTo("absent");
    }

    @Test
    void rowThatNeverExistedIsMissing() {
        TransitionResult result = classify(new Transition.Release(), null, null, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(OURS.asState());
    }

    @Test
    void retryAfterAnAmbiguousCommitOfOurDeliveryIsApplied() {
        // Our first attempt committed, the connection dropped before the acknowledgement; the retry finds our write.
        MessageState ourDelivery = row(MessageStatus.DELIVERED, OUR_TOKEN, null, 4);

        TransitionResult result = classify(new Transition.Deliver(), ourDelivery, ourDelivery, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(result.entry()).isEqualTo(ourDelivery);
    }

    @Test
    void ourEarlierWriteCommittingWhileTheRetryWaitsOnTheLockIsApplied() {
        MessageState ourRetry = row(MessageStatus.RETRY_SCHEDULED, OUR_TOKEN, null, 4);

        TransitionResult result = classify(
                new Transition.ScheduleRetry(Duration.ofSeconds(5), "timeout"), LEASED, ourRetry, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(result.entry()).isEqualTo(ourRetry);
    }

    @Test
    void ourTokenOnADifferentStatusThanRequestedIsNotApplied() {
        // We ended our lease with a retry; a later request to deliver under the same lease is not ours to claim.
        MessageState ourRetry = row(MessageStatus.RETRY_SCHEDULED, OUR_TOKEN, null, 4);

        TransitionResult result = classify(new Transition.Deliver(), ourRetry, ourRetry, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
    }

    @Test
    void replayAfterOurDeliveryIsNotMistakenForOurWrite() {
        MessageState replayed = row(MessageStatus.PENDING, null, null, 5);

        TransitionResult result = classify(new Transition.Deliver(), replayed, replayed, null);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(result.entry()).isEqualTo(replayed);
    }

    @Test
    void inboxDeliveryRetriedAfterAnAmbiguousCommitIsAppliedOnlyAsCompleted() {
        MessageState completed = row(MessageStatus.COMPLETED, OUR_TOKEN, null, 4);
        MessageState delivered = row(MessageStatus.DELIVERED, OUR_TOKEN, null, 4);

        TransitionResult inbox = TransitionClassifier.classify(Queue.INBOX, new Transition.Deliver(), OURS,
                Optional.of(completed), Optional.of(completed), Optional.empty(), NOW);
        TransitionResult outboxTargetInInbox = TransitionClassifier.classify(Queue.INBOX, new Transition.Deliver(),
                OURS, Optional.of(delivered), Optional.of(delivered), Optional.empty(), NOW);

        assertThat(inbox.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(outboxTargetInInbox.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
    }
}
