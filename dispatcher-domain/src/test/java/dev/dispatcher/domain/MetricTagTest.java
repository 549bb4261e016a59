package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/** The metric tag values are part of the published interface (DESIGN "Metrics"): fixed strings. */
class MetricTagTest {

    private static final MessageState DELIVERED =
            new MessageState(MessageId.of("m-1"), MessageStatus.DELIVERED, new UUID(1, 1), null, 2, 1);

    @Test
    void outcomeTagsAreExactlyTheDocumentedValues() {
        assertThat(TransitionOutcome.APPLIED.tag()).isEqualTo("applied");
        assertThat(TransitionOutcome.STALE_LEASE.tag()).isEqualTo("stale_lease");
        assertThat(TransitionOutcome.TERMINAL.tag()).isEqualTo("terminal");
        assertThat(TransitionOutcome.CONCURRENCY_LOST.tag()).isEqualTo("concurrency_lost");
        assertThat(TransitionOutcome.MISSING.tag()).isEqualTo("missing");
        assertThat(new TransitionOutcome.Applied().tag()).isEqualTo("applied");
    }

    @Test
    void transitionTagsAreExactlyTheDocumentedValues() {
        assertThat(new Transition.Deliver().tag()).isEqualTo("deliver");
        assertThat(new Transition.ScheduleRetry(Duration.ofSeconds(1), "e").tag()).isEqualTo("retry");
        assertThat(new Transition.DeadLetter("r").tag()).isEqualTo("dead_letter");
        assertThat(new Transition.RenewLease(Duration.ofSeconds(30)).tag()).isEqualTo("renew");
        assertThat(new Transition.Release().tag()).isEqualTo("release");
        assertThat(new Transition.Release(Duration.ofSeconds(5), "topic unavailable").tag()).isEqualTo("release");
    }

    @Test
    void durableStatusTagsAreExactlyTheDocumentedValues() {
        assertThat(Arrays.stream(MessageStatus.values()).map(MessageStatus::tag))
                .containsExactly("pending", "retry_scheduled", "delivered", "completed", "dead_lettered");
        assertThat(Queue.OUTBOX.tag()).isEqualTo("outbox");
        assertThat(Queue.INBOX.tag()).isEqualTo("inbox");
    }

    @Test
    void missingResultHasDurableStatusAbsent() {
        TransitionResult missing = new TransitionResult(TransitionOutcome.MISSING, DELIVERED);

        assertThat(missing.durableStatusTag()).isEqualTo("absent");
        assertThat(missing.isApplied()).isFalse();
    }

    @Test
    void otherResultsTagTheEntryStatus() {
        for (TransitionOutcome outcome : new TransitionOutcome[] {
                TransitionOutcome.APPLIED, TransitionOutcome.STALE_LEASE, TransitionOutcome.TERMINAL,
                TransitionOutcome.CONCURRENCY_LOST}) {
            assertThat(new TransitionResult(outcome, DELIVERED).durableStatusTag())
                    .as("%s", outcome.tag()).isEqualTo("delivered");
        }
    }
}
