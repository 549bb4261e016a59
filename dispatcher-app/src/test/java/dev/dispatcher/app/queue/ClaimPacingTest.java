package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.queue.ClaimPacing.ClaimAt;
import dev.dispatcher.app.queue.ClaimPacing.ClaimNow;
import dev.dispatcher.app.queue.ClaimPacing.ClaimOnFreedOrWakeup;
import dev.dispatcher.app.queue.ClaimPacing.ClaimOnWakeup;
import dev.dispatcher.app.queue.ClaimPacing.Outcome;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Each pacing rule of the claim loop on a clock the test moves by hand (nanoseconds from 0): what the next claim
 * waits for after a full, partial, held-back, empty and failed claim, and how the linger stretches and doubles.
 */
class ClaimPacingTest {

    private static final long MS = 1_000_000L;
    private static final long LINGER = 5 * MS;
    private static final long POLL = 1_000 * MS;
    private static final int BATCH = 100;

    private static LoopSettings settings() {
        return new LoopSettings("pacing", BATCH, 2, Duration.ofSeconds(30), Duration.ofNanos(POLL),
                Duration.ofNanos(LINGER), RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0,
                        Jitter.NONE, 5, new SplittableRandom(1)), Duration.ofSeconds(10));
    }

    /** The pacing after claims that started at the given times and found the given rows (none full). */
    private static ClaimPacing afterPartialClaims(long[] starts, int[] rows) {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 0);
        for (int i = 0; i < starts.length; i++) {
            pacing = pacing.started(starts[i]).claimed(rows[i], false, false);
        }
        return pacing;
    }

    @Test
    void theFirstClaimWaitsForAWakeUpButNoLinger() {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 7 * MS);

        assertThat(pacing.next()).isEqualTo(new ClaimOnWakeup(7 * MS));
    }

    @Test
    void aFullClaimIsFollowedByAClaimAtOnce() {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 0).started(10 * MS).claimed(BATCH, true, false);

        assertThat(pacing.last()).isEqualTo(Outcome.FULL);
        assertThat(pacing.next()).isEqualTo(new ClaimNow());
    }

    @Test
    void aPartialClaimIsFollowedByAClaimALingerAfterItStarted() {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 0).started(10 * MS).claimed(3, false, false);

        assertThat(pacing.last()).isEqualTo(Outcome.PARTIAL);
        assertThat(pacing.next()).isEqualTo(new ClaimAt(10 * MS + LINGER));
        assertThat(ClaimPacing.delay(10 * MS + LINGER, 12 * MS)).as("3 ms left at 12 ms").isEqualTo(3 * MS);
        assertThat(ClaimPacing.delay(10 * MS + LINGER, 20 * MS)).as("passed: at once").isZero();
    }

    @Test
    void aSlowStreamKeepsTheConfiguredLinger() {
        // 2 rows in the 5 ms since the claim before: 400 a second
        ClaimPacing pacing = afterPartialClaims(new long[] {0, 5 * MS}, new int[] {2, 2});

        assertThat(pacing.lingerNanos()).isEqualTo(LINGER);
        assertThat(pacing.next()).isEqualTo(new ClaimAt(5 * MS + LINGER));
    }

    @Test
    void aFastStreamStretchesTheLingerWithItsRate() {
        // 5 rows in 5 ms: 1,000 a second, twice the stream rate
        ClaimPacing pacing = afterPartialClaims(new long[] {0, 5 * MS}, new int[] {5, 5});

        assertThat(pacing.lingerNanos()).isEqualTo(2 * LINGER);
        assertThat(pacing.next()).isEqualTo(new ClaimAt(5 * MS + 2 * LINGER));
    }

    @Test
    void theStretchStopsAtFourTimesTheLinger() {
        ClaimPacing pacing = afterPartialClaims(new long[] {0, 5 * MS}, new int[] {50, 90});

        assertThat(pacing.lingerNanos()).isEqualTo(ClaimPacing.MAX_STRETCH * LINGER);
    }

    @Test
    void onlyAClaimAfterAPartialOrHeldBackOneMeasuresAStream() {
        ClaimPacing afterFull = ClaimPacing.initial(settings(), 0).started(0).claimed(BATCH, true, false)
                .started(MS).claimed(90, false, false);
        ClaimPacing afterEmpty = ClaimPacing.initial(settings(), 0).started(0).claimed(0, false, false)
                .started(MS).claimed(90, false, false);

        assertThat(afterFull.lingerNanos()).as("after a full claim").isEqualTo(LINGER);
        assertThat(afterEmpty.lingerNanos()).as("after an empty claim").isEqualTo(LINGER);
        assertThat(afterFull.next()).isEqualTo(new ClaimAt(MS + LINGER));
    }

    @Test
    void aFullClaimUnderAFastStreamAlsoSetsTheStretchedLinger() {
        ClaimPacing pacing = afterPartialClaims(new long[] {0}, new int[] {5})
                .started(5 * MS).claimed(BATCH, true, false);

        assertThat(pacing.next()).isEqualTo(new ClaimNow());
        assertThat(pacing.lingerNanos()).as("100 rows in 5 ms").isEqualTo(4 * LINGER);
    }

    @Test
    void aHeldBackClaimWaitsForAFreedBatchOrAWakeUpAndTheStreamsLinger() {
        ClaimPacing streaming = afterPartialClaims(new long[] {0, 5 * MS}, new int[] {5, 5}); // linger 10 ms
        ClaimPacing held = streaming.started(15 * MS).claimed(0, false, true);

        assertThat(held.last()).isEqualTo(Outcome.HELD_BACK);
        assertThat(held.lingerNanos()).as("the stream's linger stays").isEqualTo(2 * LINGER);
        assertThat(held.next()).isEqualTo(new ClaimOnFreedOrWakeup(15 * MS + 2 * LINGER));
    }

    @Test
    void consecutiveHeldBackClaimsDoubleTheWaitUpToThePoll() {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 0).started(0).claimed(2, false, false);
        long start = 0;
        long[] expectedWaits = {LINGER, 2 * LINGER, 4 * LINGER, 8 * LINGER, 16 * LINGER, 32 * LINGER, 64 * LINGER,
                128 * LINGER, POLL, POLL};
        for (long expected : expectedWaits) {
            start += 10 * MS;
            pacing = pacing.started(start).claimed(0, false, true);
            assertThat(pacing.next()).isEqualTo(new ClaimOnFreedOrWakeup(start + expected));
        }
        assertThat(pacing.heldBackClaims()).isEqualTo(expectedWaits.length);
    }

    @Test
    void aClaimAfterAHeldBackOneCountsItsRowsOverTheWindowSinceThatClaim() {
        ClaimPacing held = ClaimPacing.initial(settings(), 0).started(0).claimed(2, false, false)
                .started(10 * MS).claimed(0, false, true);
        // the stream went on behind the held keys: 200 rows in the 20 ms since the held-back claim, 10,000 a second
        ClaimPacing after = held.started(30 * MS).claimed(200, false, false);

        assertThat(after.heldBackClaims()).isZero();
        assertThat(after.lingerNanos()).isEqualTo(4 * LINGER);
        assertThat(after.next()).isEqualTo(new ClaimAt(30 * MS + 4 * LINGER));
    }

    @Test
    void anEmptyClaimWaitsForAWakeUpAndALingerAfterItStarted() {
        ClaimPacing pacing = ClaimPacing.initial(settings(), 0).started(10 * MS).claimed(0, false, false);

        assertThat(pacing.last()).isEqualTo(Outcome.EMPTY);
        assertThat(pacing.next()).isEqualTo(new ClaimOnWakeup(10 * MS + LINGER));
    }

    @Test
    void aFailedClaimCountsAsEmptyAndEndsARunOfHeldBackClaims() {
        ClaimPacing held = ClaimPacing.initial(settings(), 0).started(0).claimed(0, false, true)
                .started(10 * MS).claimed(0, false, true);
        ClaimPacing failed = held.started(20 * MS).failed();

        assertThat(failed.last()).isEqualTo(Outcome.EMPTY);
        assertThat(failed.heldBackClaims()).isZero();
        assertThat(failed.next()).isEqualTo(new ClaimOnWakeup(20 * MS + LINGER));
    }

    @Test
    void aRestartedLoopWaitsForAWakeUpWithTheLastStartAndLinger() {
        ClaimPacing running = afterPartialClaims(new long[] {0, 5 * MS}, new int[] {5, 5}).started(15 * MS)
                .claimed(BATCH, true, false);
        ClaimPacing restarted = running.restarted();

        assertThat(restarted.last()).isEqualTo(Outcome.EMPTY);
        assertThat(restarted.next()).isEqualTo(new ClaimOnWakeup(15 * MS + running.lingerNanos()));
    }

    @Test
    void theLingerStretchesInProportionToTheRateBetweenItselfAndFourTimesItself() {
        long fiveMs = 5 * MS;
        assertThat(ClaimPacing.stretchedLinger(LINGER, 2, fiveMs)).as("400/s").isEqualTo(LINGER);
        assertThat(ClaimPacing.stretchedLinger(LINGER, 5, fiveMs)).as("1,000/s").isEqualTo(2 * LINGER);
        assertThat(ClaimPacing.stretchedLinger(LINGER, 500, fiveMs)).as("100,000/s").isEqualTo(4 * LINGER);
        assertThat(ClaimPacing.stretchedLinger(LINGER, 0, fiveMs)).isEqualTo(LINGER);
        assertThat(ClaimPacing.stretchedLinger(LINGER, 5, 0)).isEqualTo(LINGER);
    }

    @Test
    void theHeldBackLingerDoublesFromTheSecondEmptyClaimAndStopsAtThePoll() {
        long linger = 20 * MS;

        assertThat(ClaimPacing.heldBackLinger(linger, 1, POLL)).isEqualTo(linger);
        assertThat(ClaimPacing.heldBackLinger(linger, 2, POLL)).isEqualTo(2 * linger);
        assertThat(ClaimPacing.heldBackLinger(linger, 6, POLL)).isEqualTo(32 * linger);
        assertThat(ClaimPacing.heldBackLinger(linger, 7, POLL)).isEqualTo(POLL);
        assertThat(ClaimPacing.heldBackLinger(linger, Integer.MAX_VALUE, POLL)).isEqualTo(POLL);
        assertThat(ClaimPacing.heldBackLinger(0, 40, POLL)).isZero();
    }

    @Property
    void theStretchedLingerStaysBetweenTheLingerAndFourTimesIt(
            @ForAll @LongRange(min = 0, max = 1_000 * MS) long linger,
            @ForAll @IntRange(min = 0, max = 100_000) int rows,
            @ForAll @LongRange(min = -MS, max = 60_000 * MS) long window) {
        long stretched = ClaimPacing.stretchedLinger(linger, rows, window);

        assertThat(stretched).isBetween(linger, ClaimPacing.MAX_STRETCH * linger);
    }

    @Property
    void theHeldBackWaitNeverPassesThePollAndNeverShrinks(
            @ForAll @LongRange(min = 0, max = 1_000 * MS) long linger,
            @ForAll @IntRange(min = 1, max = 1_000) int emptyClaims) {
        long wait = ClaimPacing.heldBackLinger(linger, emptyClaims, POLL);
        long next = ClaimPacing.heldBackLinger(linger, emptyClaims + 1, POLL);

        assertThat(wait).isLessThanOrEqualTo(Math.max(POLL, linger)).isLessThanOrEqualTo(next);
        assertThat(wait).isGreaterThanOrEqualTo(Math.min(linger, POLL));
    }
}
