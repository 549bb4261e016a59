package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * The contract of {@link LeasedQueue}, written once and run against every queue (the outbox, and an inbox
 * consumer's rows), the way gruelbox runs one persistor test against every dialect: claim behaviour ({@code SKIP
 * LOCKED}, leases, attempts, expired-lease takeover), the five transition outcomes with their races made
 * deterministic by holding the row lock from a second connection until the transition is seen blocked on it
 * ({@code pg_blocking_pids}), the same id twice in one batch, and a transition retried after an ambiguous commit.
 * Durable state is always read through a separate JDBC connection, never through the code under test.
 *
 * @param <M> the queue's claimed row type
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LeasedQueueContract<M extends Claimed> {

    static final Duration BLOCK = Duration.ofSeconds(20);
    static final Duration LEASE = Duration.ofSeconds(30);
    private static final Transition DELIVER = new Transition.Deliver();

    /**
     * Deliver alone: the one-row fast statement ({@code DELIVER_ONE}); a row it did not write is classified by the
     * one-row classified statement with the fast statement's snapshot.
     */
    static final String ONE_ROW_FORM = "one-row form";
    /**
     * Deliver first, beside another lease's Deliver: ours takes the one-row fast statement (the first Deliver's
     * token), the other the classified statement.
     */
    static final String ARRAY_FORM = "array form";
    /**
     * Deliver after another lease's Deliver: the other takes the fast statement and ours the one-row classified
     * statement alone, with its own snapshot.
     */
    static final String CLASSIFIED_FORM = "classified form";
    /**
     * Deliver with a second row of the same lease: both in the fast statement; a row it did not write is
     * classified by the one-row form with the fast statement's snapshot.
     */
    static final String FAST_BATCH_FORM = "fast batch form";

    final PostgresServer postgres = TestServers.postgres();
    final String schema = postgres.createSchema(prefix());
    final ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(
                    new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                            .host(postgres.host()).port(postgres.port()).database(postgres.database())
                            .username(postgres.username()).password(postgres.password())
                            .schema(schema).applicationName(prefix() + "-contract")
                            .forceBinary(true) // as the service (see DatabaseConfiguration)
                            .build()))
            .initialSize(0).maxSize(6).validationQuery("SELECT 1").build());
    private LeasedQueue<M> queue;

    /** The schema prefix of this queue's tests. */
    abstract String prefix();

    /** A fresh queue under test on {@code pool}. */
    abstract LeasedQueue<M> create(ConnectionPool pool);

    /** The table. */
    abstract String table();

    /** The condition selecting one row by id, with one {@code ?} (plus the consumer for a scoped table). */
    abstract String rowCondition();

    /** The id as JDBC binds it ({@code uuid} or {@code text}). */
    abstract Object idParameter(String id);

    /** Inserts one row visible after {@code visibleDelay}; returns its id as text. */
    abstract String insert(Duration visibleDelay) throws SQLException;

    /** The column {@code Deliver} timestamps. */
    abstract String successAtColumn();

    /** The status {@code Deliver} writes. */
    abstract String successStatus();

    @BeforeEach
    void emptyTable() throws Exception {
        exec("DELETE FROM " + table());
        queue = create(pool);
    }

    @AfterAll
    void closePool() {
        pool.dispose();
    }

    // ---------------------------------------------------------------- claims

    @Test
    void claimLeasesVisibleRowsInInsertOrderWithOneFreshTokenPerBatchAndCountsAnAttempt() throws Exception {
        String first = insert();
        String second = insert();
        String later = insert(Duration.ofMinutes(10));

        List<M> claimed = claim("worker-a", 10);
        insert();
        M next = claimOne("worker-a");

        assertThat(claimed).extracting(m -> m.leased().id().value()).containsExactly(first, second);
        assertThat(claimed).extracting(m -> m.leased().lease().token()).containsOnly(
                claimed.getFirst().leased().lease().token());
        assertThat(next.leased().lease().token()).as("every claim draws a new token")
                .isNotEqualTo(claimed.getFirst().leased().lease().token());
        for (M m : claimed) {
            Row row = existing(m.leased().id().value());
            assertThat(row.leaseOwner()).isEqualTo("worker-a");
            assertThat(row.leaseToken()).isEqualTo(m.leased().lease().token());
            assertThat(row.leaseUntil()).isAfter(Instant.now().plusSeconds(20));
            assertThat(row.attempts()).isEqualTo(1);
            assertThat(row.version()).as("claims do not change the version").isZero();
            assertThat(m.leaseExpired()).isFalse();
        }
        assertThat(existing(later).leaseToken()).as("not visible yet").isNull();
    }

    @Test
    void claimSkipsRowsLockedByAnotherTransaction() throws Exception {
        String locked = insert();
        String free = insert();
        try (RowLockRace lock = new RowLockRace(this::jdbc, table(), rowCondition(), idParameter(locked))) {
            assertThat(claim("worker-a", 10)).extracting(m -> m.leased().id().value()).containsExactly(free);
        }
        assertThat(claim("worker-b", 10)).extracting(m -> m.leased().id().value()).containsExactly(locked);
    }

    @Test
    void concurrentClaimsNeverLeaseOneRowTwice() throws Exception {
        for (int i = 0; i < 60; i++) {
            insert();
        }
        List<CompletableFuture<List<M>>> claims = List.of("a", "b", "c", "d").stream()
                .map(w -> queue.claim("worker-" + w, 20, LEASE).toFuture()).toList();

        Set<String> seen = new HashSet<>();
        int total = 0;
        for (CompletableFuture<List<M>> c : claims) {
            for (M m : c.get(20, TimeUnit.SECONDS)) {
                total++;
                seen.add(m.leased().id().value());
            }
        }
        assertThat(seen).hasSize(total);
        assertThat(total).isEqualTo(60);
    }

    @Test
    void aLeasedRowIsNotClaimedAgainWhileItsLeaseRuns() throws Exception {
        insert();
        assertThat(claim("worker-a", 10)).hasSize(1);

        assertThat(claim("worker-b", 10)).isEmpty();
    }

    @Test
    void anExpiredLeaseIsTakenOverWithANewTokenAndCountedAsExpired() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        expireLease(id);

        M b = claimOne("worker-b");

        assertThat(b.leaseExpired()).isTrue();
        assertThat(b.leased().lease().token()).isNotEqualTo(a.leased().lease().token());
        assertThat(b.leased().attempts()).isEqualTo(2);
        assertThat(existing(id).leaseOwner()).isEqualTo("worker-b");
    }

    // ---------------------------------------------------------------- outcomes

    @Test
    void deliverOnLiveLeaseIsAppliedAndBumpsVersionOnce() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");

        TransitionResult result = single(transition(a, DELIVER));

        Row row = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.status()).isEqualTo(successStatus());
        assertThat(row.version()).isEqualTo(1);
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.leaseToken()).as("terminal rows keep the finishing token").isEqualTo(a.leased().lease().token());
        assertThat(row.finishedAt()).isNotNull();
        assertEntryIsRow(result.entry(), row);
    }

    @Test
    void deliverAfterLeaseWasTakenOverIsStaleLeaseAndWritesNothing() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        expireLease(id);
        M b = claimOne("worker-b");
        Row before = existing(id);

        TransitionResult result = single(transition(a, DELIVER));

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(after).isEqualTo(before);
        assertThat(after.leaseToken()).isEqualTo(b.leased().lease().token());
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo("pending");
    }

    @Test
    void renewAfterLeaseWasTakenOverIsStaleLeaseAndDoesNotExtendTheThiefsLease() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        expireLease(id);
        claimOne("worker-b");
        Row before = existing(id);

        TransitionResult result = single(transition(a, new Transition.RenewLease(Duration.ofHours(1))));

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(existing(id)).isEqualTo(before);
    }

    @Test
    void deliverOfRowAnotherLeaseAlreadyDeliveredIsTerminal() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        expireLease(id);
        M b = claimOne("worker-b");
        assertThat(single(transition(b, DELIVER)).outcome()).isEqualTo(TransitionOutcome.APPLIED);
        Row before = existing(id);

        TransitionResult result = single(transition(a, DELIVER));

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
        assertThat(after).isEqualTo(before);
        assertThat(after.leaseToken()).isEqualTo(b.leased().lease().token());
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo(successStatus().toLowerCase());
    }

    @Test
    void retryOfRowAnOperatorDeadLetteredIsTerminalAndWritesNothing() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        update("status = 'DEAD_LETTERED', lease_token = NULL, lease_until = NULL, version = version + 1, "
                + "dead_lettered_at = now(), last_error = 'operator'", id);
        Row before = existing(id);

        TransitionResult result = single(transition(a, new Transition.ScheduleRetry(Duration.ofSeconds(5), "boom")));

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
        assertThat(after).isEqualTo(before);
        assertThat(after.lastError()).isEqualTo("operator");
        assertThat(result.durableStatusTag()).isEqualTo("dead_lettered");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ONE_ROW_FORM, ARRAY_FORM, CLASSIFIED_FORM, FAST_BATCH_FORM})
    void operatorCommittingWhileDeliverWaitsIsConcurrencyLostAndTheWinnerIsKept(String form) throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        CompletableFuture<TransitionResult> pending;
        try (RowLockRace race = new RowLockRace(this::jdbc, table(), rowCondition(), idParameter(id))) {
            pending = deliverInForm(a, form);
            race.awaitBlocked(Duration.ofSeconds(10));
            assertThat(pending).isNotDone();
            assertThat(race.changeAndCommit("UPDATE " + table() + " SET status = 'DEAD_LETTERED', lease_token = NULL,"
                    + " lease_until = NULL, version = version + 1, dead_lettered_at = now(), last_error = 'operator'"
                    + " WHERE " + rowCondition(), idParameter(id))).isEqualTo(1);
        }

        TransitionResult result = pending.get(10, TimeUnit.SECONDS);

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.CONCURRENCY_LOST);
        assertThat(after.status()).isEqualTo("DEAD_LETTERED");
        assertThat(after.version()).isEqualTo(1);
        assertThat(after.leaseToken()).isNull();
        assertThat(after.finishedAt()).isNull();
        assertThat(after.lastError()).isEqualTo("operator");
        assertEntryIsRow(result.entry(), after);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ONE_ROW_FORM, ARRAY_FORM, CLASSIFIED_FORM, FAST_BATCH_FORM})
    void ownRenewalCommittingWhileDeliverWaitsDoesNotLoseTheDeliver(String form) throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        CompletableFuture<TransitionResult> pending;
        try (RowLockRace race = new RowLockRace(this::jdbc, table(), rowCondition(), idParameter(id))) {
            pending = deliverInForm(a, form);
            race.awaitBlocked(Duration.ofSeconds(10));
            race.changeAndCommit("UPDATE " + table() + " SET lease_until = lease_until + interval '10 seconds'"
                    + " WHERE " + rowCondition(), idParameter(id));
        }

        TransitionResult result = pending.get(10, TimeUnit.SECONDS);

        Row after = existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.status()).isEqualTo(successStatus());
        assertThat(after.version()).isEqualTo(1);
        assertEntryIsRow(result.entry(), after);
    }

    @Test
    void deliverOfDeletedRowIsMissingWithOurLeasedSnapshot() throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        delete(id);

        TransitionResult result = single(transition(a, DELIVER));

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(a.leased().asState());
        assertThat(result.durableStatusTag()).isEqualTo("absent");
        assertThat(row(id)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ONE_ROW_FORM, ARRAY_FORM, CLASSIFIED_FORM, FAST_BATCH_FORM})
    void rowDeletedWhileDeliverWaitsIsMissingWithOurLeasedSnapshot(String form) throws Exception {
        String id = insert();
        M a = claimOne("worker-a");
        CompletableFuture<TransitionResult> pending;
        try (RowLockRace race = new RowLockRace(this::jdbc, table(), rowCondition(), idParameter(id))) {
            pending = deliverInForm(a, form);
            race.awaitBlocked(Duration.ofSeconds(10));
            assertThat(race.changeAndCommit("DELETE FROM " + table() + " WHERE " + rowCondition(), idParameter(id)))
                    .isEqualTo(1);
        }

        TransitionResult result = pending.get(10, TimeUnit.SECONDS);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(a.leased().asState());
        assertThat(row(id)).isEmpty();
    }

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

    // ---------------------------------------------------------------- support

    /**
     * Delivers {@code m} with the one-row statement (a request alone) or the array statement (beside a request for
     * a second, unrelated row claimed for this), and emits {@code m}'s result.
     */
    CompletableFuture<TransitionResult> deliverInForm(M m, String form) throws Exception {
        List<TransitionRequest> requests = new java.util.ArrayList<>();
        requests.add(new TransitionRequest(m.leased(), DELIVER));
        switch (form) {
            case ONE_ROW_FORM -> {
            }
            case ARRAY_FORM -> requests.add(new TransitionRequest(companion().leased(), DELIVER));
            case CLASSIFIED_FORM -> requests.addFirst(new TransitionRequest(companion().leased(), DELIVER));
            case FAST_BATCH_FORM -> {
                // a second row of m's own claimed batch: the companion's lease moved under m's token
                LeasedMessage other = companion().leased();
                update("lease_token = '" + m.leased().lease().token() + "'", other.id().value());
                requests.add(new TransitionRequest(new LeasedMessage(other.id(), m.leased().lease(),
                        other.version(), other.attempts(), other.status(), other.key(), other.seq()), DELIVER));
            }
            default -> throw new IllegalArgumentException(form);
        }
        String id = m.leased().id().value();
        return queue.transition(requests)
                .map(results -> {
                    assertThat(results).hasSize(requests.size());
                    return results.stream().filter(r -> r.entry().id().value().equals(id)).findFirst().orElseThrow();
                })
                .toFuture();
    }

    /** A second, unrelated row, claimed under its own lease. */
    private M companion() throws SQLException {
        insert();
        return claimOne("worker-companion");
    }

    LeasedQueue<M> queue() {
        return queue;
    }

    String insert() throws SQLException {
        return insert(Duration.ZERO);
    }

    List<M> claim(String owner, int limit) {
        return queue.claim(owner, limit, LEASE).block(BLOCK);
    }

    M claimOne(String owner) {
        List<M> batch = claim(owner, 10);
        assertThat(batch).hasSize(1);
        return batch.getFirst();
    }

    List<TransitionResult> transition(M m, Transition t) {
        return queue.transition(List.of(new TransitionRequest(m.leased(), t))).block(BLOCK);
    }

    static TransitionResult single(List<TransitionResult> results) {
        assertThat(results).hasSize(1);
        return results.getFirst();
    }

    Connection jdbc() throws SQLException {
        return postgres.openConnection(schema);
    }

    int exec(String sql, Object... args) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            return s.executeUpdate();
        }
    }

    void update(String assignments, String id) throws SQLException {
        assertThat(exec("UPDATE " + table() + " SET " + assignments + " WHERE " + rowCondition(), idParameter(id)))
                .isEqualTo(1);
    }

    void delete(String id) throws SQLException {
        assertThat(exec("DELETE FROM " + table() + " WHERE " + rowCondition(), idParameter(id))).isEqualTo(1);
    }

    /** Moves the lease of {@code id} into the past, as if its worker had stalled for longer than the lease. */
    void expireLease(String id) throws SQLException {
        update("lease_until = now() - interval '1 second'", id);
    }

    Optional<Row> row(String id) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("SELECT status, attempts, lease_owner,"
                + " lease_token, lease_until, version, visible_after, " + successAtColumn() + " AS finished_at,"
                + " dead_lettered_at, last_error FROM " + table() + " WHERE " + rowCondition())) {
            s.setObject(1, idParameter(id));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(Row.of(id, rs)) : Optional.empty();
            }
        }
    }

    Row existing(String id) throws SQLException {
        return row(id).orElseThrow(() -> new AssertionError("row " + id + " is missing"));
    }

    static void assertEntryIsRow(MessageState entry, Row row) {
        assertThat(entry.id().value()).isEqualTo(row.id());
        assertThat(entry.status().name()).isEqualTo(row.status());
        assertThat(entry.leaseToken()).isEqualTo(row.leaseToken());
        assertThat(entry.leaseUntil()).isEqualTo(row.leaseUntil());
        assertThat(entry.version()).isEqualTo(row.version());
        assertThat(entry.attempts()).isEqualTo(row.attempts());
    }

    /** A durable row of either table, as read through JDBC. */
    record Row(String id, String status, int attempts, String leaseOwner, java.util.UUID leaseToken,
            Instant leaseUntil, long version, Instant visibleAfter, Instant finishedAt, Instant deadLetteredAt,
            String lastError) {

        static Row of(String id, ResultSet rs) throws SQLException {
            return new Row(id, rs.getString("status"), rs.getInt("attempts"), rs.getString("lease_owner"),
                    rs.getObject("lease_token", java.util.UUID.class), instant(rs.getTimestamp("lease_until")),
                    rs.getLong("version"), instant(rs.getTimestamp("visible_after")),
                    instant(rs.getTimestamp("finished_at")), instant(rs.getTimestamp("dead_lettered_at")),
                    rs.getString("last_error"));
        }

        private static Instant instant(Timestamp t) {
            return t == null ? null : t.toInstant();
        }
    }
}
