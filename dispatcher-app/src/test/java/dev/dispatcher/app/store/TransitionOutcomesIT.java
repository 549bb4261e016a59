package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.StoreTestDb.Row;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Every {@link TransitionOutcome} made to happen on real PostgreSQL, each checked against the durable row read
 * through a separate JDBC connection. Races are made deterministic by holding the row lock from a second
 * connection until the transition is seen blocked on it.
 */
class TransitionOutcomesIT {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Transition DELIVER = new Transition.Deliver();

    private static StoreTestDb db;
    private OutboxStore store;

    @BeforeAll
    static void schema() {
        db = new StoreTestDb("outcomes");
    }

    @AfterAll
    static void closeDb() {
        db.close();
    }

    @BeforeEach
    void emptyOutbox() throws Exception {
        db.exec("DELETE FROM outbox_message");
        store = db.store();
    }

    private ClaimedMessage claimOne(String owner) {
        List<ClaimedMessage> batch = db.claim(store, owner, 10, LEASE, Ordering.NONE);
        assertThat(batch).hasSize(1);
        return batch.getFirst();
    }

    private TransitionResult single(List<TransitionResult> results) {
        assertThat(results).hasSize(1);
        return results.getFirst();
    }

    private static void assertEntryIsRow(MessageState entry, Row row) {
        assertThat(entry.id().asUuid()).isEqualTo(row.id());
        assertThat(entry.status().name()).isEqualTo(row.status());
        assertThat(entry.leaseToken()).isEqualTo(row.leaseToken());
        assertThat(entry.leaseUntil()).isEqualTo(row.leaseUntil());
        assertThat(entry.version()).isEqualTo(row.version());
        assertThat(entry.attempts()).isEqualTo(row.attempts());
    }

    @Test
    void deliverOnLiveLeaseIsAppliedAndBumpsVersionOnce() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");

        TransitionResult result = single(db.transition(store, a, DELIVER));

        Row row = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.status()).isEqualTo("DELIVERED");
        assertThat(row.version()).isEqualTo(1);
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.leaseToken()).isEqualTo(a.leased().lease().token());
        assertThat(row.deliveredAt()).isNotNull();
        assertEntryIsRow(result.entry(), row);
    }

    @Test
    void deliverAfterLeaseWasTakenOverIsStaleLeaseAndWritesNothing() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        db.expireLease(id);
        ClaimedMessage b = claimOne("worker-b");
        assertThat(b.leaseExpired()).isTrue();
        assertThat(b.leased().lease().token()).isNotEqualTo(a.leased().lease().token());
        Row before = db.existing(id);

        TransitionResult result = single(db.transition(store, a, DELIVER));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(after).isEqualTo(before);
        assertThat(after.status()).isEqualTo("PENDING");
        assertThat(after.leaseToken()).isEqualTo(b.leased().lease().token());
        assertThat(after.leaseOwner()).isEqualTo("worker-b");
        assertThat(after.leaseUntil()).isAfter(java.time.Instant.now().plusSeconds(10));
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo("pending");
    }

    @Test
    void renewAfterLeaseWasTakenOverIsStaleLeaseAndDoesNotExtendTheThiefsLease() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        db.expireLease(id);
        claimOne("worker-b");
        Row before = db.existing(id);

        TransitionResult result = single(db.transition(store, a, new Transition.RenewLease(Duration.ofHours(1))));

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(db.existing(id)).isEqualTo(before);
    }

    @Test
    void deliverOfRowAnotherLeaseAlreadyDeliveredIsTerminal() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        db.expireLease(id);
        ClaimedMessage b = claimOne("worker-b");
        assertThat(single(db.transition(store, b, DELIVER)).outcome()).isEqualTo(TransitionOutcome.APPLIED);
        Row before = db.existing(id);

        TransitionResult result = single(db.transition(store, a, DELIVER));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
        assertThat(after).isEqualTo(before);
        assertThat(after.version()).isEqualTo(1);
        assertThat(after.leaseToken()).isEqualTo(b.leased().lease().token());
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo("delivered");
    }

    @Test
    void retryOfRowAnOperatorDeadLetteredIsTerminalAndWritesNothing() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        db.exec("""
                UPDATE outbox_message SET status = 'DEAD_LETTERED', lease_token = NULL, lease_until = NULL,
                       version = version + 1, dead_lettered_at = now(), last_error = 'operator' WHERE id = ?""", id);
        Row before = db.existing(id);

        TransitionResult result = single(db.transition(store, a,
                new Transition.ScheduleRetry(Duration.ofSeconds(5), "boom")));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.TERMINAL);
        assertThat(after).isEqualTo(before);
        assertThat(after.lastError()).isEqualTo("operator");
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo("dead_lettered");
    }

    @Test
    void operatorCommittingWhileDeliverWaitsIsConcurrencyLostAndTheWinnerIsKept() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        CompletableFuture<List<TransitionResult>> pending;
        try (RowLockRace race = new RowLockRace(db, id)) {
            pending = store.transition(List.of(new TransitionRequest(a.leased(), DELIVER))).toFuture();
            race.awaitBlocked(Duration.ofSeconds(10));
            assertThat(pending).isNotDone();
            assertThat(race.changeAndCommit("""
                    UPDATE outbox_message SET status = 'DEAD_LETTERED', lease_token = NULL, lease_until = NULL,
                           version = version + 1, dead_lettered_at = now(), last_error = 'operator'
                     WHERE id = ?""", id)).isEqualTo(1);
        }

        TransitionResult result = single(pending.get(10, TimeUnit.SECONDS));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.CONCURRENCY_LOST);
        assertThat(after.status()).isEqualTo("DEAD_LETTERED");
        assertThat(after.version()).isEqualTo(1);
        assertThat(after.leaseToken()).isNull();
        assertThat(after.deliveredAt()).isNull();
        assertThat(after.lastError()).isEqualTo("operator");
        assertEntryIsRow(result.entry(), after);
        assertThat(result.durableStatusTag()).isEqualTo("dead_lettered");
    }

    @Test
    void ownRenewalCommittingWhileDeliverWaitsDoesNotLoseTheDeliver() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        CompletableFuture<List<TransitionResult>> pending;
        try (RowLockRace race = new RowLockRace(db, id)) {
            pending = store.transition(List.of(new TransitionRequest(a.leased(), DELIVER))).toFuture();
            race.awaitBlocked(Duration.ofSeconds(10));
            race.changeAndCommit(
                    "UPDATE outbox_message SET lease_until = lease_until + interval '10 seconds' WHERE id = ?", id);
        }

        TransitionResult result = single(pending.get(10, TimeUnit.SECONDS));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.status()).isEqualTo("DELIVERED");
        assertThat(after.version()).isEqualTo(1);
        assertEntryIsRow(result.entry(), after);
    }

    @Test
    void deliverOfDeletedRowIsMissingWithOurLeasedSnapshot() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        db.exec("DELETE FROM outbox_message WHERE id = ?", id);

        TransitionResult result = single(db.transition(store, a, DELIVER));

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(a.leased().asState());
        assertThat(result.durableStatusTag()).isEqualTo("absent");
        assertThat(db.row(id)).isEmpty();
    }

    @Test
    void rowDeletedWhileDeliverWaitsIsMissingWithOurLeasedSnapshot() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        CompletableFuture<List<TransitionResult>> pending;
        try (RowLockRace race = new RowLockRace(db, id)) {
            pending = store.transition(List.of(new TransitionRequest(a.leased(), DELIVER))).toFuture();
            race.awaitBlocked(Duration.ofSeconds(10));
            assertThat(race.changeAndCommit("DELETE FROM outbox_message WHERE id = ?", id)).isEqualTo(1);
        }

        TransitionResult result = single(pending.get(10, TimeUnit.SECONDS));

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.MISSING);
        assertThat(result.entry()).isEqualTo(a.leased().asState());
        assertThat(db.row(id)).isEmpty();
    }

    @Test
    void sameIdTwiceInOneBatchIsWrittenOnceAndReportedOnceFirstWins() throws Exception {
        UUID first = db.insert(null);
        UUID second = db.insert(null);
        List<ClaimedMessage> batch = db.claim(store, "worker-a", 10, LEASE, Ordering.NONE);
        assertThat(batch).extracting(m -> m.leased().id().asUuid()).containsExactly(first, second);
        ClaimedMessage m1 = batch.get(0);
        ClaimedMessage m2 = batch.get(1);

        List<TransitionResult> results = store.transition(List.of(
                new TransitionRequest(m2.leased(), DELIVER),
                new TransitionRequest(m1.leased(), DELIVER),
                new TransitionRequest(m2.leased(), new Transition.DeadLetter("should lose to the first request")),
                new TransitionRequest(m1.leased(), DELIVER))).block(StoreTestDb.BLOCK);

        assertThat(results).extracting(r -> r.entry().id().asUuid()).containsExactly(second, first);
        assertThat(results).extracting(TransitionResult::outcome)
                .containsOnly(TransitionOutcome.APPLIED);
        for (UUID id : List.of(first, second)) {
            Row row = db.existing(id);
            assertThat(row.status()).isEqualTo("DELIVERED");
            assertThat(row.version()).isEqualTo(1);
            assertThat(row.lastError()).isNull();
        }
    }

    @Test
    void deliverRetriedAfterAnAmbiguousCommitIsRecognisedAsOwnWrite() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        TransitionResult first = single(db.transition(store, a, DELIVER));
        Row afterFirst = db.existing(id);

        TransitionResult retried = single(db.transition(store, a, DELIVER));

        Row afterRetry = db.existing(id);
        assertThat(first.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(retried.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(afterRetry).isEqualTo(afterFirst);
        assertThat(afterRetry.version()).isEqualTo(1);
        assertEntryIsRow(retried.entry(), afterRetry);
    }

    @Test
    void releaseRetriedAfterAnAmbiguousCommitGivesTheAttemptBackOnlyOnce() throws Exception {
        UUID id = db.insert(null);
        ClaimedMessage a = claimOne("worker-a");
        assertThat(a.leased().attempts()).isEqualTo(1);

        TransitionResult first = single(db.transition(store, a, new Transition.Release()));
        TransitionResult retried = single(db.transition(store, a, new Transition.Release()));

        Row row = db.existing(id);
        assertThat(first.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(retried.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(row.attempts()).isZero();
        assertThat(row.status()).isEqualTo("PENDING");
        assertThat(row.leaseUntil()).isNull();
        assertThat(row.version()).isZero();
    }

    @Test
    void renewExtendsTheLeaseWithoutChangingVersionOrAttempts() throws Exception {
        UUID id = db.insert(null);
        List<ClaimedMessage> batch = db.claim(store, "worker-a", 10, Duration.ofSeconds(2), Ordering.NONE);
        ClaimedMessage a = batch.getFirst();
        Row before = db.existing(id);

        TransitionResult result = single(db.transition(store, a, new Transition.RenewLease(Duration.ofMinutes(5))));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.leaseUntil()).isAfter(before.leaseUntil().plusSeconds(200));
        assertThat(after.version()).isEqualTo(before.version());
        assertThat(after.attempts()).isEqualTo(before.attempts());
        assertThat(after.status()).isEqualTo("PENDING");
        assertThat(after.leaseToken()).isEqualTo(a.leased().lease().token());
        assertEntryIsRow(result.entry(), after);
        assertThat(db.claim(store, "worker-b", 10, LEASE, Ordering.NONE)).isEmpty();
    }

    @Test
    void releaseGivesTheAttemptBackAndEndsTheLease() throws Exception {
        UUID id = db.insert(null);
        claimOne("worker-a");
        db.expireLease(id);
        ClaimedMessage second = claimOne("worker-a");
        assertThat(second.leased().attempts()).isEqualTo(2);

        TransitionResult result = single(db.transition(store, second, new Transition.Release()));

        Row after = db.existing(id);
        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(after.attempts()).isEqualTo(1);
        assertThat(after.leaseUntil()).isNull();
        assertThat(after.status()).isEqualTo("PENDING");
        assertThat(after.version()).isZero();
        assertEntryIsRow(result.entry(), after);
        ClaimedMessage again = claimOne("worker-b");
        assertThat(again.leaseExpired()).as("a released lease is not an expired one").isFalse();
        assertThat(again.leased().attempts()).isEqualTo(2);
    }

    @Test
    void nonAppliedOutcomesAreCountedByOutcomeAndWarnedButNeverAsPublished() throws Exception {
        // stale lease
        UUID staleId = db.insert(null);
        ClaimedMessage stale = claimOne("worker-a");
        db.expireLease(staleId);
        claimOne("worker-b");
        // terminal
        UUID terminalId = db.insert(null);
        ClaimedMessage terminal = claimOne("worker-a");
        db.exec("UPDATE outbox_message SET status = 'DELIVERED', lease_token = gen_random_uuid(), lease_until = NULL, "
                + "version = version + 1 WHERE id = ?", terminalId);
        // missing
        UUID missingId = db.insert(null);
        ClaimedMessage missing = claimOne("worker-a");
        db.exec("DELETE FROM outbox_message WHERE id = ?", missingId);

        List<TransitionRequest> requests = List.of(new TransitionRequest(stale.leased(), DELIVER),
                new TransitionRequest(terminal.leased(), DELIVER), new TransitionRequest(missing.leased(), DELIVER));
        List<TransitionResult> results = store.transition(requests).block(StoreTestDb.BLOCK);
        assertThat(results).extracting(TransitionResult::outcome).containsExactly(TransitionOutcome.STALE_LEASE,
                TransitionOutcome.TERMINAL, TransitionOutcome.MISSING);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DispatcherMetrics metrics = new DispatcherMetrics(registry);
        Logger logger = (Logger) LoggerFactory.getLogger(DispatcherMetrics.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            for (TransitionResult r : results) {
                metrics.transition(Queue.OUTBOX, "worker-a", DELIVER, r);
            }
        } finally {
            logger.detachAppender(appender);
        }

        assertThat(attempts(registry, "stale_lease", "pending")).isEqualTo(1.0);
        assertThat(attempts(registry, "terminal", "delivered")).isEqualTo(1.0);
        assertThat(attempts(registry, "missing", "absent")).isEqualTo(1.0);
        assertThat(registry.find("dispatcher.transition.attempts").tag("outcome", "applied").counters()).isEmpty();
        assertThat(registry.find("dispatcher.messages").tag("result", "published").counters()).isEmpty();

        List<ILoggingEvent> warnings = appender.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(warnings).hasSize(3);
        String[][] expected = {{staleId.toString(), "stale_lease", "pending"},
                {terminalId.toString(), "terminal", "delivered"}, {missingId.toString(), "missing", "absent"}};
        for (int i = 0; i < expected.length; i++) {
            assertThat(warnings.get(i).getFormattedMessage()).contains("transition not applied", "worker=worker-a",
                    "message=" + expected[i][0], "outcome=" + expected[i][1], "durable_status=" + expected[i][2],
                    "transition=deliver", "queue=outbox");
        }
    }

    private static double attempts(SimpleMeterRegistry registry, String outcome, String durableStatus) {
        return registry.get("dispatcher.transition.attempts").tag("queue", "outbox").tag("transition", "deliver")
                .tag("outcome", outcome).tag("durable_status", durableStatus).counter().count();
    }
}
