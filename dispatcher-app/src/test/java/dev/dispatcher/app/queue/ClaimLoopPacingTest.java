package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The claim loop's pacing in virtual time ({@link ClaimPacing}): at once after a full claim, a linger after a partial
 * one (stretched with a fast stream's rate), a wake-up or the poll after an empty one, and at once when a batch that
 * held back work (its keys) finishes.
 */
class ClaimLoopPacingTest extends ClaimLoopFixture {

    @Test
    void aFullBatchIsFollowedByAnotherClaimAtOnce() {
        AtomicInteger claim = new AtomicInteger();
        queue.rowsPerClaim = () -> claim.incrementAndGet() == 1 ? BATCH : 0;
        strategy.finishImmediately = true;
        start();

        assertThat(queue.claims.get()).as("no virtual time passed: the full claim was followed at once")
                .isEqualTo(2);
    }

    @Test
    void aPartialBatchIsFollowedByAnotherClaimAfterTheLinger() {
        queue.rowsPerClaim = () -> 3;
        strategy.finishImmediately = true;
        start();
        assertThat(queue.claims.get()).isEqualTo(1);

        time.advanceTimeBy(LINGER.minusNanos(1));
        assertThat(queue.claims.get()).isEqualTo(1);
        time.advanceTimeBy(Duration.ofNanos(1));
        assertThat(queue.claims.get()).isEqualTo(2);
    }

    @Test
    void aFastStreamStretchesTheLingerWithItsRateUpToFourTimesAndASlowOneKeepsIt() {
        strategy.finishImmediately = true;
        Stream fast = new Stream(2.0); // 2,000 rows a second: stretched to the cap, 4 x 5 ms
        queue.rowsPerClaim = fast;
        start(1000);
        time.advanceTimeBy(Duration.ofMillis(105));
        assertThat(fast.claimTimes).as("ms of each claim").containsExactly(0L, 5L, 25L, 45L, 65L, 85L, 105L);

        queue.rowsPerClaim = () -> 0;
        loop.stop().subscribe();
        time.advanceTime();
        Stream slow = new Stream(0.4); // 400 rows a second: under the stream rate, the linger as configured
        queue.rowsPerClaim = slow;
        loop.start();
        time.advanceTimeBy(Duration.ofMillis(30));
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < slow.claimTimes.size(); i++) {
            gaps.add(slow.claimTimes.get(i) - slow.claimTimes.get(i - 1));
        }
        assertThat(gaps).as("ms between claims").hasSizeGreaterThanOrEqualTo(4).containsOnly(5L);
    }

    /** Rows arriving at {@code perMs} a millisecond: a claim finds those that arrived since the previous one. */
    private final class Stream implements IntSupplier {
        final List<Long> claimTimes = new ArrayList<>();
        private final double perMs;

        Stream(double perMs) {
            this.perMs = perMs;
        }

        @Override
        public int getAsInt() {
            long now = time.now(java.util.concurrent.TimeUnit.MILLISECONDS);
            long since = claimTimes.isEmpty() ? 5 : now - claimTimes.getLast();
            claimTimes.add(now);
            return (int) Math.round(since * perMs);
        }
    }

    /**
     * Starts a per-key loop (batch 1000) on a 2,000 rows a second stream (the linger stretched to 4 x 5 ms) whose
     * batches finish at once until the claim at 65 ms; that batch stays in flight, its keys hold back every later
     * row, and every claim after it finds nothing.
     */
    private Stream streamHeldBackFrom65() {
        strategy.holdsBack = true;
        strategy.finishImmediately = true;
        Stream fast = new Stream(2.0);
        queue.rowsPerClaim = () -> {
            long now = time.now(TimeUnit.MILLISECONDS);
            if (now < 65) {
                return fast.getAsInt();
            }
            if (now == 65) {
                strategy.finishImmediately = false;
                return fast.getAsInt();
            }
            fast.claimTimes.add(now);
            return 0;
        };
        start(1000);
        return fast;
    }

    @Test
    void anEmptyClaimBehindKeysInFlightWaitsTheStreamsLingerNotEveryWakeUpAndTheBatchFreeingThemClaimsAtOnce() {
        Stream fast = streamHeldBackFrom65();
        time.advanceTimeBy(Duration.ofMillis(65));
        assertThat(fast.claimTimes).as("ms of each claim").containsExactly(0L, 5L, 25L, 45L, 65L);

        for (int ms = 0; ms < 50; ms++) { // to 115 ms
            loop.wake();
            time.advanceTimeBy(Duration.ofMillis(1));
        }
        assertThat(fast.claimTimes).as("empty claims behind the batch in flight: one a stretched linger, not one "
                + "a claim linger after each wake-up").containsExactly(0L, 5L, 25L, 45L, 65L, 85L, 105L);

        strategy.finishOldest(); // wake-ups came while it ran: it may have held rows back, and its keys are free
        time.advanceTime();
        assertThat(fast.claimTimes).as("claimed when the batch finished, without waiting out the linger")
                .containsExactly(0L, 5L, 25L, 45L, 65L, 85L, 105L, 115L);
    }

    @Test
    void emptyClaimsBehindABatchThatStaysInFlightBackOffToThePollAndItsFinishClaimsAtOnce() {
        Stream fast = streamHeldBackFrom65(); // a stalled batch holding every key: nothing else is claimable
        time.advanceTimeBy(Duration.ofMillis(65));

        for (int ms = 65; ms < 2_500; ms++) { // a wake-up every millisecond while the batch stays in flight
            loop.wake();
            time.advanceTimeBy(Duration.ofMillis(1));
        }
        assertThat(fast.claimTimes).as("empty claims: the stream's 20 ms linger, then doubling up to the 1 s poll")
                .containsExactly(0L, 5L, 25L, 45L, 65L, 85L, 105L, 145L, 225L, 385L, 705L, 1_345L, 2_345L);

        strategy.finishOldest(); // its keys are free
        time.advanceTime();
        assertThat(fast.claimTimes).as("claimed when the batch finished, without waiting out the back-off")
                .endsWith(2_345L, 2_500L);

        time.advanceTimeBy(Duration.ofMillis(15));
        fast.claimTimes.clear();
        strategy.finishImmediately = false;
        queue.rowsPerClaim = () -> {
            fast.claimTimes.add(time.now(TimeUnit.MILLISECONDS));
            return 0;
        };
        for (int ms = 0; ms < 100; ms++) {
            loop.wake();
            time.advanceTimeBy(Duration.ofMillis(1));
        }
        assertThat(fast.claimTimes).as("a claim that found nothing with nothing in flight ends the back-off")
                .isNotEmpty();
    }

    @Test
    void aPartialBatchThatMayHaveLeftRowsOfItsKeysIsFollowedByAClaimAtOnceWhenItFinishes() {
        for (boolean leftRows : List.of(true, false)) {
            List<Long> claimTimes = new CopyOnWriteArrayList<>();
            AtomicInteger claims = new AtomicInteger();
            strategy.holdsBack = true;
            strategy.leftRows = leftRows;
            // a partial batch (runs cut at a key's most rows per claim), then nothing claimable while it holds its keys
            queue.rowsPerClaim = () -> {
                claimTimes.add(time.now(TimeUnit.MILLISECONDS));
                return claims.getAndIncrement() == 0 ? BATCH / 2 : 0;
            };
            start();
            time.advanceTimeBy(Duration.ofMillis(300));
            assertThat(claimTimes).as("the batch, then one empty claim after the linger").hasSize(2);

            strategy.finishOldest(); // no wake-up came while it ran
            time.advanceTime();
            if (leftRows) {
                assertThat(claimTimes).as("its keys are free and may have rows: claimed at once").hasSize(3);
                assertThat(claimTimes.getLast()).isEqualTo(claimTimes.getFirst() + 300);
            } else {
                assertThat(claimTimes).as("nothing may have been left behind: the next claim waits for the poll")
                        .hasSize(2);
            }
            queue.rowsPerClaim = () -> 0;
            strategy.finishAll();
            loop.stop().subscribe();
            time.advanceTimeBy(Duration.ofMinutes(1));
            strategy.finishImmediately = false;
            loop = null;
        }
    }

    @Test
    void aClaimAfterAnEmptyOneBehindKeysInFlightKeepsTheStreamsLinger() {
        strategy.holdsBack = true;
        strategy.finishImmediately = true;
        Stream fast = new Stream(2.0); // 2,000 rows a second: the linger stretched to 4 x 5 ms
        List<Long> claimTimes = new ArrayList<>();
        queue.rowsPerClaim = () -> {
            long now = time.now(TimeUnit.MILLISECONDS);
            if (now < 65) {
                return fast.getAsInt();
            }
            claimTimes.add(now);
            strategy.finishImmediately = false; // from 65 on, batches stay in flight until finished below
            return now == 65 || now >= 90 ? 50 : 0; // between, every row is on a key the batch of 65 holds
        };
        start(1000);
        time.advanceTimeBy(Duration.ofMillis(85));
        assertThat(claimTimes).as("the batch of 65 in flight: the claim at 85 finds nothing").containsExactly(65L,
                85L);

        time.advanceTimeBy(Duration.ofMillis(5)); // 90 ms: the batch of 65 finishes and frees its keys
        loop.wake();
        strategy.finishOldest();
        time.advanceTime();
        assertThat(claimTimes).as("claimed at once").containsExactly(65L, 85L, 90L);

        time.advanceTimeBy(Duration.ofMillis(19));
        assertThat(claimTimes).as("the stream went on behind the held keys: its linger stays stretched, no claim"
                + " a claim-linger later").containsExactly(65L, 85L, 90L);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(claimTimes).containsExactly(65L, 85L, 90L, 110L);
    }

    @Test
    void anEmptyClaimWaitsForAWakeUpOrThePoll() {
        queue.rowsPerClaim = () -> 0;
        start();
        assertThat(queue.claims.get()).isEqualTo(1);

        time.advanceTimeBy(Duration.ofMillis(500));
        assertThat(queue.claims.get()).as("nothing to wake it").isEqualTo(1);

        loop.wake();
        time.advanceTimeBy(LINGER);
        assertThat(queue.claims.get()).as("woken").isEqualTo(2);

        time.advanceTimeBy(POLL);
        assertThat(queue.claims.get()).as("polled").isEqualTo(3);
        time.advanceTimeBy(Duration.ofMillis(100));
        assertThat(queue.claims.get()).isEqualTo(3);
    }
}
