package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The contract of {@link LeasedQueue}, written once and run against every queue (the outbox, and an inbox
 * consumer's rows), the way gruelbox runs one persistor test against every dialect: claim behaviour ({@code SKIP
 * LOCKED}, leases, attempts, expired-lease takeover), the five transition outcomes with their races made
 * deterministic by holding the row lock from a second connection until the transition is seen blocked on it
 * ({@code pg_blocking_pids}), the same id twice in one batch, and a transition retried after an ambiguous commit.
 * Durable state is always read through a separate JDBC connection, never through the code under test. Claims and
 * the races are in {@link LeasedQueueClaimsAndRaces}, batches, retries and releases here, the servers and the
 * support they share in {@link LeasedQueueFixture}.
 *
 * @param <M> the queue's claimed row type
 */
abstract class LeasedQueueContract<M extends Claimed> extends LeasedQueueClaimsAndRaces<M> {

    @Test
    void deliverOfABatchWritesOnlyRowsStillHeldAndClassifiesEveryOtherRowAsBefore() throws Exception {
        String taken = insert();
        String deleted = insert();
        String deadLettered = insert();
        String held = insert();
        List<M> batch = claim("worker-a", 10);
        assertThat(batch).extracting(m -> m.leased().id().value()).containsExactly(taken, deleted, deadLettered, held);
        expireLease(taken);
        M thief = claimOne("worker-b");
        delete(deleted);
        update("status = 'DEAD_LETTERED', lease_token = NULL, lease_until = NULL, version = version + 1, "
                + "dead_lettered_at = now(), last_error = 'operator'", deadLettered);
        Row takenBefore = existing(taken);
        Row deadLetteredBefore = existing(deadLettered);

        List<TransitionResult> results = queue.transition(batch.stream()
                .map(m -> new TransitionRequest(m.leased(), DELIVER)).toList()).block(BLOCK);

        assertThat(results).extracting(r -> r.entry().id().value()).containsExactly(taken, deleted, deadLettered, held);
        assertThat(results).extracting(TransitionResult::outcome).containsExactly(TransitionOutcome.STALE_LEASE,
                TransitionOutcome.MISSING, TransitionOutcome.TERMINAL, TransitionOutcome.APPLIED);
        assertThat(existing(taken)).as("the thief's lease is untouched").isEqualTo(takenBefore);
        assertThat(existing(taken).leaseToken()).isEqualTo(thief.leased().lease().token());
        assertEntryIsRow(results.get(0).entry(), takenBefore);
        assertThat(results.get(1).entry()).isEqualTo(batch.get(1).leased().asState());
        assertThat(row(deleted)).isEmpty();
        assertThat(existing(deadLettered)).isEqualTo(deadLetteredBefore);
        assertEntryIsRow(results.get(2).entry(), deadLetteredBefore);
        Row delivered = existing(held);
        assertThat(delivered.status()).isEqualTo(successStatus());
        assertThat(delivered.version()).isEqualTo(1);
        assertThat(delivered.leaseUntil()).isNull();
        assertThat(delivered.finishedAt()).isNotNull();
        assertEntryIsRow(results.get(3).entry(), delivered);
    }

    @Test
    void aBatchDeliveredWholeIsReportedRowByRowAsEachRowWasLeft() throws Exception {
        List<String> ids = List.of(insert(), insert(), insert(), insert(), insert());
        List<M> batch = claim("worker-a", 10);
        // a renewal between claim and Deliver changes neither version nor attempts
        assertThat(queue.transition(batch.stream().map(m -> new TransitionRequest(m.leased(),
                new Transition.RenewLease(Duration.ofMinutes(5)))).toList()).block(BLOCK))
                .extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);

        List<TransitionResult> results = queue.transition(batch.stream()
                .map(m -> new TransitionRequest(m.leased(), DELIVER)).toList()).block(BLOCK);

        assertThat(results).extracting(r -> r.entry().id().value()).containsExactlyElementsOf(ids);
        assertThat(results).extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);
        for (TransitionResult result : results) {
            Row row = existing(result.entry().id().value());
            assertThat(row.status()).isEqualTo(successStatus());
            assertEntryIsRow(result.entry(), row);
        }
    }

    @Test
    void deliverBesideOtherTransitionsOfTheSameBatchWritesEachOnce() throws Exception {
        String published = insert();
        String failed = insert();
        String poisoned = insert();
        List<M> batch = claim("worker-a", 10);

        List<TransitionResult> results = queue.transition(List.of(
                new TransitionRequest(batch.get(0).leased(), DELIVER),
                new TransitionRequest(batch.get(1).leased(), new Transition.ScheduleRetry(Duration.ofMinutes(1), "x")),
                new TransitionRequest(batch.get(2).leased(), new Transition.DeadLetter("poison")))).block(BLOCK);

        assertThat(results).extracting(r -> r.entry().id().value()).containsExactly(published, failed, poisoned);
        assertThat(results).extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);
        assertThat(existing(published).status()).isEqualTo(successStatus());
        assertThat(existing(failed).status()).isEqualTo("RETRY_SCHEDULED");
        assertThat(existing(failed).lastError()).isEqualTo("x");
        assertThat(existing(poisoned).status()).isEqualTo("DEAD_LETTERED");
        for (String id : List.of(published, failed, poisoned)) {
            assertThat(existing(id).version()).isEqualTo(1);
        }
    }

    @Test
    void sameIdTwiceInOneBatchIsWrittenOnceAndReportedOnceFirstWins() throws Exception {
        String first = insert();
        String second = insert();
        List<M> batch = claim("worker-a", 10);
        assertThat(batch).extracting(m -> m.leased().id().value()).containsExactly(first, second);
        M m1 = batch.get(0);
        M m2 = batch.get(1);

        List<TransitionResult> results = queue.transition(List.of(
                new TransitionRequest(m2.leased(), DELIVER),
                new TransitionRequest(m1.leased(), DELIVER),
                new TransitionRequest(m2.leased(), new Transition.DeadLetter("should lose to the first request")),
                new TransitionRequest(m1.leased(), DELIVER))).block(BLOCK);

        assertThat(results).extracting(r -> r.entry().id().value()).containsExactly(second, first);
        assertThat(results).extracting(TransitionResult::outcome).containsOnly(TransitionOutcome.APPLIED);
        for (String id : List.of(first, second)) {
            Row row = existing(id);
            assertThat(row.status()).isEqualTo(successStatus());
            assertThat(row.version()).isEqualTo(1);
            assertThat(row.lastError()).isNull();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ONE_ROW_FORM, ARRAY_FORM, CLASSIFIED_FORM, FAST_BATCH_FORM})
    void deliverRetriedAfterAnAmbiguousCommitIsRecognisedAsOwnWrite(String form) throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        TransitionResult first = deliverInForm(a, form).get(10, TimeUnit.SECONDS);
        Row afterFirst = existing(id);

        // the acknowledgement of the first write was "lost": the worker repeats the same transition
        TransitionResult retried = deliverInForm(a, form).get(10, TimeUnit.SECONDS);

        Row afterRetry = existing(id);
        assertThat(first.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(retried.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(afterRetry).isEqualTo(afterFirst);
        assertThat(afterRetry.version()).isEqualTo(1);
        assertEntryIsRow(retried.entry(), afterRetry);
    }

    @Test
    void releaseRetriedAfterAnAmbiguousCommitGivesTheAttemptBackOnlyOnce() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        assertThat(a.leased().attempts()).isEqualTo(1);

        TransitionResult first = single(transition(a, new Transition.Release()));
        TransitionResult retried = single(transition(a, new Transition.Release()));

        Row row = existing(id);
        assertThat(first.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(retried.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.attempts()).isZero();
        assertThat(row.status()).isEqualTo("PENDING");
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.version()).isZero();
    }

    @Test
    void renewExtendsTheLeaseWithoutChangingVersionOrAttempts() throws Exception {
        String id = insert();
        M a = queue.claim("worker-a", 10, Duration.ofSeconds(2)).block(BLOCK).getFirst();
        Row before = existing(id);

        TransitionResult result = single(transition(a, new Transition.RenewLease(Duration.ofMinutes(5))));

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.leaseUntil()).isAfter(before.leaseUntil().plusSeconds(200));
        assertThat(after.version()).isEqualTo(before.version());
        assertThat(after.attempts()).isEqualTo(before.attempts());
        assertThat(after.leaseToken()).isEqualTo(a.leased().lease().token());
        assertEntryIsRow(result.entry(), after);
        assertThat(claim("worker-b", 10)).isEmpty();
    }

    @Test
    void retryScheduledIsVisibleOnlyAfterItsDelayAndKeepsTheError() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");

        TransitionResult result = single(transition(a, new Transition.ScheduleRetry(Duration.ofMinutes(5), "later")));

        Row row = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.status()).isEqualTo("RETRY_SCHEDULED");
        assertThat(row.lastError()).isEqualTo("later");
        assertThat(row.visibleAfter()).isAfter(Instant.now().plusSeconds(200));
        assertThat(row.version()).isEqualTo(1);
        assertThat(claim("worker-b", 10)).isEmpty();
    }

    @Test
    void releaseGivesTheAttemptBackAndEndsTheLeaseWithoutCountingAnExpiry() throws Exception {
        String id = insert();
        claimOne("worker-a");
        expireLease(id);
        M second = claimOne("worker-a");
        assertThat(second.leased().attempts()).isEqualTo(2);

        TransitionResult result = single(transition(second, new Transition.Release()));

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.attempts()).isEqualTo(1);
        assertThat(after.leaseUntil()).isNull();
        assertThat(after.status()).isEqualTo("PENDING");
        assertThat(after.version()).isZero();
        M again = claimOne("worker-b");
        assertThat(again.leaseExpired()).as("a released lease is not an expired one").isFalse();
        assertThat(again.leased().attempts()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {ONE_ROW_FORM, ARRAY_FORM})
    void aDelayedReleaseKeepsTheRowInvisibleForItsDelayWithItsErrorAndGivesTheAttemptBack(String form)
            throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        assertThat(a.leased().attempts()).isEqualTo(1);
        Transition release = new Transition.Release(Duration.ofMinutes(5), "topic 'x' does not exist");

        List<TransitionResult> results = form.equals(ONE_ROW_FORM) ? transition(a, release)
                : queue.transition(List.of(new TransitionRequest(a.leased(), release),
                        new TransitionRequest(companion().leased(), new Transition.Release()))).block(BLOCK);

        Row row = existing(id);
        assertThat(results.getFirst().outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertEntryIsRow(results.getFirst().entry(), row);
        assertThat(row.status()).isEqualTo("PENDING");
        assertThat(row.attempts()).as("the attempt is given back").isZero();
        assertThat(row.version()).isZero();
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.lastError()).isEqualTo("topic 'x' does not exist");
        assertThat(row.visibleAfter()).isAfter(Instant.now().plusSeconds(200));
        assertThat(claim("worker-b", 10)).as("the released row stays invisible").extracting(m -> m.leased().id()
                .value()).doesNotContain(id);
    }

    @Test
    void aPlainReleaseLeavesVisibilityAndTheLastErrorAsTheyWere() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        single(transition(a, new Transition.Release(Duration.ofMillis(1), "topic 'x' does not exist")));
        update("visible_after = now() - interval '1 minute'", id);
        Instant visibleBefore = existing(id).visibleAfter();
        M b = claimOne("worker-b");

        TransitionResult result = single(transition(b, new Transition.Release()));

        Row row = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.lastError()).as("kept from the earlier failure").isEqualTo("topic 'x' does not exist");
        assertThat(row.visibleAfter()).isEqualTo(visibleBefore);
        assertThat(row.attempts()).isZero();
        assertThat(claimOne("worker-c").leased().id().value()).isEqualTo(id);
    }

    @Test
    void nonAppliedOutcomesAreCountedByOutcomeAndWarnedButNeverAsSuccess() throws Exception {
        String staleId = insert();
        M stale = claimOne("worker-a");
        expireLease(staleId);
        claimOne("worker-b");
        String terminalId = insert();
        M terminal = claimOne("worker-a");
        update("status = '" + successStatus() + "', lease_token = gen_random_uuid(), lease_until = NULL, "
                + "version = version + 1", terminalId);
        String missingId = insert();
        M missing = claimOne("worker-a");
        delete(missingId);

        List<TransitionResult> results = queue.transition(List.of(new TransitionRequest(stale.leased(), DELIVER),
                new TransitionRequest(terminal.leased(), DELIVER), new TransitionRequest(missing.leased(), DELIVER)))
                .block(BLOCK);
        assertThat(results).extracting(TransitionResult::outcome).containsExactly(TransitionOutcome.STALE_LEASE,
                TransitionOutcome.TERMINAL, TransitionOutcome.MISSING);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DispatcherMetrics metrics = new DispatcherMetrics(registry);
        Logger logger = (Logger) LoggerFactory.getLogger(DispatcherMetrics.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            results.forEach(r -> metrics.transition(queue.queue(), "worker-a", DELIVER, r));
        } finally {
            logger.detachAppender(appender);
        }

        String tag = queue.queue().tag();
        assertThat(attempts(registry, tag, "stale_lease", "pending")).isEqualTo(1.0);
        assertThat(attempts(registry, tag, "terminal", successStatus().toLowerCase())).isEqualTo(1.0);
        assertThat(attempts(registry, tag, "missing", "absent")).isEqualTo(1.0);
        assertThat(registry.find("dispatcher.transition.attempts").tag("outcome", "applied").counters()).isEmpty();
        assertThat(metrics.totals(queue.queue()).succeeded()).isZero();
        assertThat(metrics.totals(queue.queue()).notApplied()).isEqualTo(3);
        List<ILoggingEvent> warnings = appender.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(warnings).hasSize(3);
        String[][] expected = {{staleId, "stale_lease"}, {terminalId, "terminal"}, {missingId, "missing"}};
        for (int i = 0; i < expected.length; i++) {
            assertThat(warnings.get(i).getFormattedMessage()).contains("transition not applied", "worker=worker-a",
                    "message=" + expected[i][0], "outcome=" + expected[i][1], "transition=deliver",
                    "queue=" + tag);
        }
    }

    private static double attempts(SimpleMeterRegistry registry, String queue, String outcome, String status) {
        return registry.get("dispatcher.transition.attempts").tag("queue", queue).tag("transition", "deliver")
                .tag("outcome", outcome).tag("durable_status", status).counter().count();
    }

}
