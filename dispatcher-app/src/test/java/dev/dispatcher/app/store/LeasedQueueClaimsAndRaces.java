package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The first half of {@link LeasedQueueContract}: claims ({@code SKIP LOCKED}, leases, attempts, expired-lease
 * takeover) and the outcomes of a transition that meets another lease, an operator or a deleted row, with each race
 * made deterministic by holding the row lock from a second connection until the transition is seen blocked on it.
 *
 * @param <M> the queue's claimed row type
 */
abstract class LeasedQueueClaimsAndRaces<M extends Claimed> extends LeasedQueueFixture<M> {

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
}
