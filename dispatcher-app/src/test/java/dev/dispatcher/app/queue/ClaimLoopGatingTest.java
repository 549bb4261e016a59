package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The claim loop's gates in virtual time, against a port that answers at once: capacity (batches and bytes in
 * flight), the pause switch, an unavailable destination, and stopping and starting again; every turn claims or waits
 * for a real change, so no stream of wake-ups can make it spin. The port's database behaviour is the contract
 * suite's business, not this test's.
 */
class ClaimLoopGatingTest extends ClaimLoopFixture {

    @Test
    void eachClaimIsGivenTheBytesBatchesInFlightLeaveAndNoneIsMadeWhileTheyHoldThemAll() {
        queue.rowsPerClaim = () -> BATCH;
        queue.bytesPerRow = 300;
        start(BATCH, 8, 1000);
        time.advanceTimeBy(Duration.ofSeconds(5));

        // 3 rows fit 1000 bytes and the claim counts as full; the next gets the 100 left and takes one row alone
        assertThat(queue.budgets).containsExactly(1000L, 100L);
        assertThat(loop.inFlightBatches()).isEqualTo(2);
        assertThat(loop.inFlightBytes()).as("at most one row past the bound").isEqualTo(1200);
        long turnsWhileFull = loop.turns();
        for (int i = 0; i < 100; i++) {
            loop.wake();
        }
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(queue.claims.get()).as("no claim while the bytes in flight are at the bound").isEqualTo(2);
        assertThat(loop.turns() - turnsWhileFull).isLessThanOrEqualTo(6);

        strategy.finishOldest();
        time.advanceTime();
        assertThat(queue.budgets).as("the finished batch's 900 bytes freed").containsExactly(1000L, 100L, 700L,
                100L);
        assertThat(loop.inFlightBytes()).isEqualTo(1200);
    }

    @Test
    void aClaimLeavingLessThanItsMeanRowIsFullByBytes() {
        assertThat(ClaimLoop.fullByBytes(900, 3, 1000)).isTrue();
        assertThat(ClaimLoop.fullByBytes(300, 1, 100)).as("one row larger than the budget").isTrue();
        assertThat(ClaimLoop.fullByBytes(600, 3, 1000)).isFalse();
        assertThat(ClaimLoop.fullByBytes(0, 0, 1000)).isFalse();
        assertThat(ClaimLoop.fullByBytes(5_000, 10, LoopSettings.UNBOUNDED_BYTES)).isFalse();
    }

    @Test
    void pausedLoopClaimsNothingAndTurnsOncePerPollWhateverTheWakeUps() {
        paused.set(true);
        queue.rowsPerClaim = () -> BATCH;
        start();

        for (int ms = 0; ms < 10_000; ms++) {
            loop.wake();
            loop.wake();
            time.advanceTimeBy(Duration.ofMillis(1));
        }

        assertThat(loop.claims()).isZero();
        assertThat(queue.claims.get()).isZero();
        // one turn at start, then one per poll interval: 20,000 wake-ups bought no turn at all
        assertThat(loop.turns()).isBetween(10L, 12L);
    }

    @Test
    void aChangedPauseSwitchIsSeenAtOnceNotAtThePoll() {
        paused.set(true);
        start();
        time.advanceTimeBy(Duration.ofMillis(300));
        assertThat(loop.claims()).isZero();

        paused.set(false);
        loop.pauseChanged();
        time.advanceTimeBy(LINGER);

        assertThat(loop.claims()).isEqualTo(1);
    }

    @Test
    void aLoopWaitingForWorkThatIsPausedMeanwhileClaimsNothingWhenWorkArrives() {
        queue.rowsPerClaim = () -> 0;
        start();
        assertThat(queue.claims.get()).isEqualTo(1);

        paused.set(true);
        loop.pauseChanged();
        queue.rowsPerClaim = () -> BATCH;
        loop.wake(); // rows written after the pause: their notification must not buy a claim
        time.advanceTimeBy(LINGER.multipliedBy(2));
        assertThat(queue.claims.get()).as("no claim while paused").isEqualTo(1);
        time.advanceTimeBy(POLL.multipliedBy(3));
        assertThat(queue.claims.get()).isEqualTo(1);

        paused.set(false);
        loop.pauseChanged();
        time.advanceTimeBy(LINGER);
        assertThat(queue.claims.get()).as("resumed: the rows are claimed at once").isGreaterThan(1);
    }

    @Test
    void capacityBoundsClaimedUnfinishedBatchesAndAFinishedOneFreesASlotAtOnce() {
        queue.rowsPerClaim = () -> BATCH;
        start();
        time.advanceTimeBy(Duration.ofSeconds(5));

        assertThat(loop.claims()).isEqualTo(IN_FLIGHT);
        assertThat(loop.inFlightBatches()).isEqualTo(IN_FLIGHT);
        long turnsWhileFull = loop.turns();
        for (int i = 0; i < 1000; i++) {
            loop.wake();
        }
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(loop.claims()).as("no claim while at capacity").isEqualTo(IN_FLIGHT);
        assertThat(loop.turns() - turnsWhileFull).as("waiting for capacity polls, wake-ups do not turn it")
                .isLessThanOrEqualTo(6);

        strategy.finishOldest();
        time.advanceTime();

        assertThat(loop.claims()).as("a finished batch frees its slot without waiting for the poll")
                .isEqualTo(IN_FLIGHT + 1);
        assertThat(queue.delivered()).hasSize(BATCH);
    }


    @Test
    void anUnavailableDestinationIsProbedEveryPollAndNothingIsClaimed() {
        queue.rowsPerClaim = () -> BATCH;
        strategy.available.set(false);
        start();

        for (int s = 0; s < 5; s++) {
            loop.wake();
            time.advanceTimeBy(POLL);
        }

        assertThat(queue.claims.get()).isZero();
        assertThat(strategy.probes.get()).isEqualTo(5);

        strategy.available.set(true);
        time.advanceTimeBy(POLL.plus(LINGER));
        assertThat(queue.claims.get()).isPositive();
    }

    @Test
    void stopEndsAWaitingLoopAtOnceAndDrainsInFlightBatches() {
        queue.rowsPerClaim = () -> BATCH;
        start();
        assertThat(loop.inFlightBatches()).isEqualTo(IN_FLIGHT);
        AtomicBoolean stopped = new AtomicBoolean();

        loop.stop().subscribe(null, null, () -> stopped.set(true));
        time.advanceTime();
        assertThat(stopped).as("in-flight batches still run").isFalse();
        strategy.finishAll();
        time.advanceTime();

        assertThat(stopped).isTrue();
        assertThat(queue.delivered()).hasSize(IN_FLIGHT * BATCH);
    }

    @Test
    void aStoppedLoopStartsAgain() {
        queue.rowsPerClaim = () -> 0;
        start();
        AtomicBoolean stopped = new AtomicBoolean();
        loop.stop().subscribe(null, null, () -> stopped.set(true));
        time.advanceTime();
        assertThat(stopped).isTrue();
        long claimsWhenStopped = queue.claims.get();
        time.advanceTimeBy(POLL.multipliedBy(3));
        assertThat(queue.claims.get()).as("stopped: no claims").isEqualTo(claimsWhenStopped);

        loop.start();
        time.advanceTime();
        assertThat(queue.claims.get()).as("the new run claims").isEqualTo(claimsWhenStopped + 1);
        loop.wake();
        time.advanceTimeBy(LINGER);
        assertThat(queue.claims.get()).as("and is woken").isEqualTo(claimsWhenStopped + 2);
    }
}
