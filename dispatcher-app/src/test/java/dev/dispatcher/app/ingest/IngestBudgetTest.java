package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** What the ingest budget admits before a body is read, what it holds as the body arrives, and when it gives room back. */
class IngestBudgetTest {

    private static final String CLIENT = "token producer";

    @Test
    void aRequestPastTheByteBoundIsRefusedWith503WithoutItsWorkRunning() {
        IngestBudget budget = new IngestBudget(100, 10);
        Sinks.Empty<Void> firstHeld = Sinks.empty();
        budget.admit(CLIENT, post(70), 1000, held -> read(held, 70).then(firstHeld.asMono())).subscribe();
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(CLIENT, post(40), 1000, held -> Mono.fromRunnable(() -> ran.set(true))).subscribe(v -> { }, refused::set);

        assertThat(ran).as("the body is never read").isFalse();
        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.MEMORY_FULL);
            assertThat(p.queuedBytes()).isEqualTo(70);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-queued-bytes (100 bytes)");
        });
        assertThat(budget.reservedBytes()).as("a refusal reserves nothing").isEqualTo(70);

        firstHeld.tryEmitEmpty();
        assertThat(budget.reservedBytes()).isZero();
        budget.admit(CLIENT, post(40), 1000, held -> Mono.fromRunnable(() -> ran.set(true))).subscribe();
        assertThat(ran).isTrue();
    }

    @Test
    void aRequestPastTheConcurrencyBoundIsRefusedWith503() {
        IngestBudget budget = new IngestBudget(1000, 2);
        Disposable a = budget.admit(CLIENT, post(1), 10, held -> Mono.never()).subscribe();
        budget.admit(CLIENT, post(1), 10, held -> Mono.never()).subscribe();
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(CLIENT, post(1), 10, held -> Mono.empty()).subscribe(v -> { }, refused::set);

        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.BUSY);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-concurrent-requests");
        });
        a.dispose();
        assertThat(budget.requests()).as("a cancelled request gives its place back").isEqualTo(1);
    }

    @Test
    void aBodyHoldsAtMostItsFirst64KibUntilMoreArrivesAndOnePastTheBoundIsRefusedAsItArrives() {
        IngestBudget budget = new IngestBudget(1_000_000, 20);
        for (int i = 0; i < 8; i++) { // eight slow bodies declaring far more than they have sent
            budget.admit(CLIENT, post(200_000), 400_000, held -> read(held, 10).then(Mono.never())).subscribe();
        }
        assertThat(budget.reservedBytes()).as("64 KiB each, not what they declared")
                .isEqualTo(8 * IngestBudget.UPFRONT_BYTES);
        AtomicBoolean ran = new AtomicBoolean();
        budget.admit(CLIENT, post(200_000), 400_000, held -> read(held, 200_000).then(Mono.fromRunnable(() -> ran.set(true))))
                .subscribe();
        assertThat(ran).as("another client's body fits beside them").isTrue();

        AtomicReference<Throwable> refused = new AtomicReference<>();
        Disposable big = budget.admit(CLIENT, -1, 400_000,
                        held -> read(held, 300_000).then(read(held, 200_000)).then(Mono.never()))
                .subscribe(v -> { }, refused::set);
        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class,
                p -> assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.MEMORY_FULL));
        assertThat(big.isDisposed()).isTrue();
        assertThat(budget.reservedBytes()).as("the refused body's bytes are given back")
                .isEqualTo(8 * IngestBudget.UPFRONT_BYTES);
    }

    @Test
    void aClientPastItsShareIsRefusedWhileAnotherClientIsStillAdmitted() {
        IngestBudget budget = new IngestBudget(1000, 8, 2);
        Disposable first = budget.admit(CLIENT, post(1), 10, held -> Mono.never()).subscribe();
        budget.admit(CLIENT, post(1), 10, held -> Mono.never()).subscribe();
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(CLIENT, post(1), 10, held -> Mono.fromRunnable(() -> ran.set(true)))
                .subscribe(v -> { }, refused::set);

        assertThat(ran).as("the body is never read").isFalse();
        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.CLIENT_BUSY);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-concurrent-requests-per-client", CLIENT);
        });
        assertThat(budget.requests()).as("a refusal holds no slot").isEqualTo(2);
        budget.admit("token other", post(1), 10, held -> Mono.fromRunnable(() -> ran.set(true))).subscribe();
        assertThat(ran).as("another client is admitted beside it").isTrue();

        first.dispose();
        budget.admit(CLIENT, post(1), 10, held -> Mono.never()).subscribe(v -> { }, refused::set);
        assertThat(budget.requestsOf(CLIENT)).as("a slot given back is the client's again").isEqualTo(2);
    }

    @Test
    void aRefusalForMemoryGivesTheClientsSlotBackAndTheTableForgetsClientsHoldingNone() {
        IngestBudget budget = new IngestBudget(100, 8, 2);
        AtomicReference<Throwable> refused = new AtomicReference<>();

        budget.admit(CLIENT, post(200), 1000, held -> Mono.never()).subscribe(v -> { }, refused::set);
        Disposable held = budget.admit("token other", post(1), 10, h -> Mono.never()).subscribe();

        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class,
                p -> assertThat(p.reason()).isEqualTo(IngestProblem.Overloaded.Reason.MEMORY_FULL));
        assertThat(budget.requestsOf(CLIENT)).isZero();
        assertThat(budget.clients()).as("only the client holding a slot has an entry").isEqualTo(1);
        held.dispose();
        assertThat(budget.clients()).isZero();
        assertThat(budget.requests()).isZero();
    }

    /** {@code bytes} of the body arriving. */
    private static Mono<Void> read(IngestBudget.Reservation held, long bytes) {
        return Mono.fromRunnable(() -> held.grow(bytes));
    }

    /** The declared length of a request body of {@code contentLength} bytes. */
    private static long post(long contentLength) {
        return contentLength;
    }
}
