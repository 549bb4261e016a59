package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** What the ingest budget admits before a body is read, and when it gives room back. */
class IngestBudgetTest {

    @Test
    void aRequestPastTheByteBoundIsRefusedWith503WithoutItsWorkRunning() {
        IngestBudget budget = new IngestBudget(100, 10);
        Sinks.Empty<Void> firstHeld = Sinks.empty();
        budget.admit(post(70), 1000, held -> firstHeld.asMono()).subscribe();
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(post(40), 1000, held -> Mono.fromRunnable(() -> ran.set(true))).subscribe(v -> { }, refused::set);

        assertThat(ran).as("the body is never read").isFalse();
        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.MEMORY_FULL);
            assertThat(p.queuedBytes()).isEqualTo(70);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-queued-bytes (100 bytes)");
        });
        assertThat(budget.reservedBytes()).as("a refusal reserves nothing").isEqualTo(70);

        firstHeld.tryEmitEmpty();
        assertThat(budget.reservedBytes()).isZero();
        budget.admit(post(40), 1000, held -> Mono.fromRunnable(() -> ran.set(true))).subscribe();
        assertThat(ran).isTrue();
    }

    @Test
    void aRequestPastTheConcurrencyBoundIsRefusedWith503() {
        IngestBudget budget = new IngestBudget(1000, 2);
        Disposable a = budget.admit(post(1), 10, held -> Mono.never()).subscribe();
        budget.admit(post(1), 10, held -> Mono.never()).subscribe();
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(post(1), 10, held -> Mono.empty()).subscribe(v -> { }, refused::set);

        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.BUSY);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-concurrent-requests");
        });
        a.dispose();
        assertThat(budget.requests()).as("a cancelled request gives its place back").isEqualTo(1);
    }

    @Test
    void aBodyOfUnknownLengthReservesItsLimitAndADeclaredOneAtMostTheLimit() {
        IngestBudget budget = new IngestBudget(10_000, 10);
        budget.admit(-1, 4000, held -> Mono.never()).subscribe();
        assertThat(budget.reservedBytes()).isEqualTo(4000);
        budget.admit(post(1_000_000), 4000, held -> Mono.never()).subscribe();
        assertThat(budget.reservedBytes()).as("a larger declared body is refused with 413 when read").isEqualTo(8000);
    }

    /** The declared length of a request body of {@code contentLength} bytes. */
    private static long post(long contentLength) {
        return contentLength;
    }
}
