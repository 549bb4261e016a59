package dev.dispatcher.app.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.IngestMessage;
import dev.dispatcher.app.ingest.IngestProblem.Overloaded.Reason;
import dev.dispatcher.app.store.InsertOutcome;
import dev.dispatcher.app.store.StoredEntry;
import dev.dispatcher.app.store.IngestStore;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The ingest writer's queueing rules, on a store whose statements complete when the test says so: group commit
 * per lane, one lane per key, the wait bound (also behind a statement that never returns), abandoned requests, a
 * full lane, which failures are repeated, and how long the writer holds a request's bytes.
 * (What a statement does in the database is IngestFaultsIT's and IngestConcurrencyIT's to show.)
 */
class IngestWriterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A store that records each statement and completes it only when told to. */
    private static final class HeldStore implements IngestStore {

        final List<List<IngestMessage>> statements = new CopyOnWriteArrayList<>();
        final List<Sinks.One<List<InsertOutcome>>> pending = new CopyOnWriteArrayList<>();

        @Override
        public Mono<List<InsertOutcome>> write(List<IngestMessage> messages) {
            return Mono.defer(() -> {
                statements.add(List.copyOf(messages));
                Sinks.One<List<InsertOutcome>> sink = Sinks.one();
                pending.add(sink);
                return sink.asMono();
            });
        }

        void complete(int statement) {
            pending.get(statement).tryEmitValue(accepted(statements.get(statement)));
        }

        void fail(int statement, Throwable error) {
            pending.get(statement).tryEmitError(error);
        }
    }

    private final AtomicLong now = new AtomicLong();
    /** Times each request's own wait; advanced by hand. */
    private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();

    private IngestWriter writer(IngestStore store, int lanes) {
        return new IngestWriter(store, lanes, TIMEOUT, now::get, timer);
    }

    /** Moves both clocks: the lanes' deadline check and the requests' own timers. */
    private void elapse(Duration time) {
        now.addAndGet(time.toNanos());
        timer.advanceTimeBy(time);
    }

    @Test
    void requestsArrivingWhileTheirLaneWritesAreWrittenTogetherByItsNextStatement() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 4);
        List<List<InsertOutcome>> answers = new CopyOnWriteArrayList<>();

        writer.write(List.of(message("k"))).subscribe(answers::add);
        writer.write(List.of(message("k"))).subscribe(answers::add);
        writer.write(List.of(message("k"))).subscribe(answers::add);
        assertThat(store.statements).as("one statement in flight per lane").hasSize(1);

        store.complete(0);
        assertThat(store.statements).hasSize(2);
        assertThat(store.statements.get(1)).as("both waiting requests in one statement").hasSize(2);
        store.complete(1);
        assertThat(answers).hasSize(3).allSatisfy(a -> assertThat(a).hasSize(1));
    }

    @Test
    void otherKeysAreWrittenWhileOneKeysLaneIsBusy() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 4);
        String key = "k";
        String otherLaneKey = keyInAnotherLane(key, 4);

        writer.write(List.of(message(key))).subscribe();
        writer.write(List.of(message(otherLaneKey))).subscribe();
        assertThat(store.statements).hasSize(2);
    }

    @Test
    void requestsWithSeveralKeysShareTheirOwnLane() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);

        writer.write(List.of(message("k"))).subscribe();
        writer.write(List.of(message("a"), message("b"))).subscribe();
        writer.write(List.of(message("c"), message("d"))).subscribe();
        assertThat(store.statements).as("the keyed lane and the multi-key lane each write one").hasSize(2);
        store.complete(1);
        assertThat(store.statements.get(2)).hasSize(2);
    }

    @Test
    void eachRequestGetsItsOwnResultsInOrder() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        writer.write(List.of(message("k"))).subscribe();
        List<IngestMessage> second = List.of(message("x"), message("y"));
        List<IngestMessage> third = List.of(message("z"), message("w"));
        AtomicReference<List<InsertOutcome>> secondAnswer = new AtomicReference<>();
        AtomicReference<List<InsertOutcome>> thirdAnswer = new AtomicReference<>();
        writer.write(second).subscribe(secondAnswer::set);
        writer.write(third).subscribe(thirdAnswer::set);

        store.complete(0);
        store.complete(1);

        assertThat(store.statements.get(1)).hasSize(2);
        assertThat(secondAnswer.get()).extracting(r -> r.entry().id()).containsExactly(second.get(0).id(),
                second.get(1).id());
        store.complete(2);
        assertThat(thirdAnswer.get()).extracting(r -> r.entry().id()).containsExactly(third.get(0).id(),
                third.get(1).id());
    }

    @Test
    void aRequestThatWaitedPastTheTimeoutAnswers503AndIsNotWritten() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        writer.write(List.of(message("k"))).subscribe();
        IngestMessage late = message("k");
        AtomicReference<Throwable> error = new AtomicReference<>();
        writer.write(List.of(late)).subscribe(r -> { }, error::set);

        now.addAndGet(TIMEOUT.toNanos() + 1);
        store.complete(0);

        assertThat(error.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(Reason.WAITED_TOO_LONG);
            assertThat(p.getMessage()).contains("nothing was written");
        });
        assertThat(store.statements).hasSize(1);
    }

    @Test
    void everyRequestIsAnsweredInTimeWhileAStatementNeverReturns() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        AtomicReference<Throwable> inStatement = new AtomicReference<>();
        AtomicReference<Throwable> waiting = new AtomicReference<>();
        writer.write(List.of(message("k"))).subscribe(r -> { }, inStatement::set);
        writer.write(List.of(message("k"))).subscribe(r -> { }, waiting::set);

        elapse(TIMEOUT.plusMillis(1));
        assertThat(waiting.get()).as("waiting: refused, nothing written").isInstanceOfSatisfying(
                IngestProblem.Overloaded.class, p -> {
                    assertThat(p.reason()).isEqualTo(Reason.WAITED_TOO_LONG);
                    assertThat(p.getMessage()).contains("nothing was written");
                });
        assertThat(inStatement.get()).as("its statement may still finish").isNull();

        elapse(TIMEOUT.plusMillis(1));
        assertThat(inStatement.get()).as("in a statement that never returns").isInstanceOfSatisfying(
                IngestProblem.Overloaded.class, p -> {
                    assertThat(p.reason()).isEqualTo(Reason.WRITE_TIMED_OUT);
                    assertThat(p.getMessage()).contains("may have been applied");
                });
        store.complete(0);
        assertThat(store.statements).as("the request that gave up waiting is never written").hasSize(1);
    }

    @Test
    void theWriterHoldsARequestsBytesUntilItsStatementFinishedEvenAfterTheAnswer() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        IngestBudget budget = new IngestBudget(100, 10);
        AtomicReference<Throwable> first = new AtomicReference<>();
        budget.admit("producer", post(60), 1000, held -> {
                    held.grow(60); // its body, read
                    return writer.write(List.of(message("k")), held);
                })
                .subscribe(r -> { }, first::set);
        assertThat(budget.reservedBytes()).isEqualTo(60);

        elapse(TIMEOUT.multipliedBy(2).plusMillis(2));
        assertThat(first.get()).as("answered").isInstanceOf(IngestProblem.Overloaded.class);
        assertThat(budget.requests()).isZero();
        assertThat(budget.reservedBytes()).as("its statement still holds the messages").isEqualTo(60);
        AtomicReference<Throwable> refused = new AtomicReference<>();
        budget.admit("producer", post(60), 1000, held -> {
                    held.grow(60); // its body, read
                    return writer.write(List.of(message("k")), held);
                })
                .subscribe(r -> { }, refused::set);
        assertThat(refused.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class, p -> {
            assertThat(p.reason()).isEqualTo(Reason.MEMORY_FULL);
            assertThat(p.getMessage()).contains("dispatcher.ingest.max-queued-bytes");
        });

        store.complete(0);
        assertThat(budget.reservedBytes()).isZero();
    }

    @Test
    void aRequestDroppedFromTheQueueGivesItsBytesBackAtOnce() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        IngestBudget budget = new IngestBudget(100, 10);
        writer.write(List.of(message("k"))).subscribe();
        Disposable gone = budget.admit("producer", post(60), 1000, held -> {
                    held.grow(60); // its body, read
                    return writer.write(List.of(message("k")), held);
                })
                .subscribe();
        assertThat(budget.reservedBytes()).isEqualTo(60);

        gone.dispose();
        assertThat(budget.reservedBytes()).as("its client went away while it waited").isZero();
        store.complete(0);
        assertThat(store.statements).hasSize(1);
    }

    @Test
    void aRequestWhoseClientWentAwayBeforeItsTurnIsNotWritten() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        writer.write(List.of(message("k"))).subscribe();
        Disposable gone = writer.write(List.of(message("k"))).subscribe();
        gone.dispose();

        store.complete(0);

        assertThat(store.statements).hasSize(1);
    }

    @Test
    void aFullLaneRefusesAtOnceWith503() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        writer.write(List.of(message("k"))).subscribe();
        for (int i = 0; i < IngestWriter.MAX_QUEUED_MESSAGES; i++) {
            writer.write(List.of(message("k"))).subscribe();
        }
        AtomicReference<Throwable> error = new AtomicReference<>();
        writer.write(List.of(message("k"))).subscribe(r -> { }, error::set);

        assertThat(error.get()).isInstanceOfSatisfying(IngestProblem.Overloaded.class,
                p -> assertThat(p.reason()).isEqualTo(Reason.QUEUE_FULL));
    }

    @Test
    void aStatementWhoseConnectionWasLostIsRepeatedButOneTheServerRefusedIsNot() {
        HeldStore store = new HeldStore();
        IngestWriter writer = writer(store, 1);
        AtomicReference<List<InsertOutcome>> answer = new AtomicReference<>();
        writer.write(List.of(message("k"))).subscribe(answer::set);
        store.fail(0, new R2dbcNonTransientResourceException("Cannot exchange messages because the connection is closed"));
        // the repeat runs after a backoff on a timer thread, which may subscribe to the sink after it was completed
        await("the repeated statement", () -> store.pending.size() == 2);
        store.complete(1);
        await("the answer", () -> answer.get() != null);
        assertThat(answer.get()).hasSize(1);
        assertThat(store.statements.get(1)).isEqualTo(store.statements.get(0));

        AtomicReference<Throwable> error = new AtomicReference<>();
        writer.write(List.of(message("k"))).subscribe(r -> { }, error::set);
        await("the next request's statement", () -> store.pending.size() == 3);
        store.fail(2, new R2dbcNonTransientResourceException("canceling statement due to lock timeout", "55P03"));
        await("the refusal", () -> error.get() != null);
        assertThat(error.get()).isInstanceOf(R2dbcNonTransientResourceException.class);
        assertThat(store.statements).as("a refused statement wrote nothing and is not repeated").hasSize(3);
    }

    // ---- helpers

    /** The declared length of a request body of {@code contentLength} bytes. */
    private static long post(long contentLength) {
        return contentLength;
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1)).until(condition::getAsBoolean);
    }

    private static String keyInAnotherLane(String key, int lanes) {
        for (int i = 0; ; i++) {
            String candidate = key + i;
            if (Math.floorMod(candidate.hashCode(), lanes) != Math.floorMod(key.hashCode(), lanes)) {
                return candidate;
            }
        }
    }

    private static IngestMessage message(String key) {
        return new IngestMessage(UUID.randomUUID(), false, "t", key, "T", new byte[] {1}, null, null, null, null,
                null);
    }

    private static List<InsertOutcome> accepted(List<IngestMessage> messages) {
        List<InsertOutcome> results = new ArrayList<>();
        long seq = 1;
        for (IngestMessage m : messages) {
            results.add(new InsertOutcome.Inserted(new StoredEntry(m.id(), seq++, "PENDING", 0,
                    Instant.EPOCH)));
        }
        return results;
    }
}
