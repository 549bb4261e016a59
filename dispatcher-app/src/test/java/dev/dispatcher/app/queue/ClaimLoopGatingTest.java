package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The claim loop's gating in virtual time, against a port that answers at once: every turn claims or waits for a
 * real change, so no stream of wake-ups can make it spin, and each gate (pause, capacity, linger, breaker, full and
 * empty claims) holds exactly. The port's database behaviour is the contract suite's business, not this test's.
 */
class ClaimLoopGatingTest {

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration LINGER = Duration.ofMillis(5);
    private static final int BATCH = 10;
    private static final int IN_FLIGHT = 2;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakeQueue queue = new FakeQueue();
    private final FakeStrategy strategy = new FakeStrategy();
    private final AtomicBoolean paused = new AtomicBoolean();
    private ClaimLoop<Row> loop;

    @AfterEach
    void stop() {
        if (loop != null) {
            queue.rowsPerClaim = () -> 0; // a fake with endless full batches that finish at once never lets time pass
            strategy.finishAll();
            loop.stop().subscribe();
            time.advanceTimeBy(Duration.ofMinutes(1));
        }
        time.dispose();
    }

    private ClaimLoop<Row> start() {
        return start(BATCH);
    }

    private ClaimLoop<Row> start(int batch) {
        return start(batch, IN_FLIGHT, LoopSettings.UNBOUNDED_BYTES);
    }

    private ClaimLoop<Row> start(int batch, int inFlight, long maxInFlightBytes) {
        LoopSettings settings = new LoopSettings("gating", batch, inFlight, Duration.ofSeconds(30), POLL, LINGER,
                RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.NONE, 5,
                        new SplittableRandom(1)), Duration.ofSeconds(10), maxInFlightBytes);
        loop = new ClaimLoop<>("gating", queue, strategy, settings, new DispatcherMetrics(new SimpleMeterRegistry()),
                paused::get, time);
        loop.start();
        time.advanceTime();
        return loop;
    }

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

    // ---------------------------------------------------------------- fakes

    record Row(LeasedMessage leased, long payloadBytes) implements Claimed {
        @Override
        public boolean leaseExpired() {
            return false;
        }
    }

    /** Answers claims with {@code rowsPerClaim} fresh rows and every transition with Applied. */
    static final class FakeQueue implements LeasedQueue<Row> {
        final AtomicInteger claims = new AtomicInteger();
        final List<TransitionRequest> written = new CopyOnWriteArrayList<>();
        /** The byte budget each claim was given. */
        final List<Long> budgets = new CopyOnWriteArrayList<>();
        volatile IntSupplier rowsPerClaim = () -> 0;
        volatile long bytesPerRow;
        private long seq;

        @Override
        public Queue queue() {
            return Queue.OUTBOX;
        }

        List<TransitionRequest> delivered() {
            return written.stream().filter(r -> r.transition() instanceof Transition.Deliver).toList();
        }

        @Override
        public Mono<List<Row>> claim(String owner, int limit, Duration lease) {
            return claim(owner, limit, Long.MAX_VALUE, lease);
        }

        /** As the outbox's claim: rows while their bytes fit {@code maxBytes}, and the first one in any case. */
        @Override
        public Mono<List<Row>> claim(String owner, int limit, long maxBytes, Duration lease) {
            claims.incrementAndGet();
            budgets.add(maxBytes);
            int n = Math.min(limit, rowsPerClaim.getAsInt());
            List<Row> rows = new ArrayList<>(n);
            long bytes = 0;
            for (int i = 0; i < n && (rows.isEmpty() || bytes + bytesPerRow <= maxBytes); i++) {
                bytes += bytesPerRow;
                rows.add(new Row(new LeasedMessage(MessageId.of(UUID.randomUUID()),
                        new Lease(owner, UUID.randomUUID(), Instant.EPOCH.plus(lease)), 0, 1,
                        MessageStatus.PENDING, null, ++seq), bytesPerRow));
            }
            return Mono.just(rows);
        }

        @Override
        public Mono<List<TransitionResult>> transition(List<TransitionRequest> requests) {
            written.addAll(requests);
            return Mono.just(requests.stream().map(r -> new TransitionResult(TransitionOutcome.APPLIED,
                    new MessageState(r.leased().id(), MessageStatus.DELIVERED, r.leased().lease().token(), null, 1,
                            1))).toList());
        }

        @Override
        public Mono<Backlog> backlog() {
            return Mono.just(Backlog.EMPTY);
        }

        @Override
        public Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit) {
            return Mono.just(0L);
        }
    }

    /** Publishes every row successfully when told to; holds batches open until then. */
    static final class FakeStrategy implements BatchStrategy<Row> {
        final AtomicBoolean available = new AtomicBoolean(true);
        final AtomicInteger probes = new AtomicInteger();
        final List<Sinks.Empty<Void>> open = new CopyOnWriteArrayList<>();
        volatile boolean finishImmediately;
        volatile boolean holdsBack;
        volatile boolean leftRows;

        @Override
        public Mono<List<Attempt<Row>>> work(Batch<Row> batch) {
            List<Attempt<Row>> attempts = batch.messages().stream()
                    .<Attempt<Row>>map(m -> new Attempt.Dispatched<>(m, DispatchResult.PUBLISHED)).toList();
            if (finishImmediately) {
                return Mono.just(attempts);
            }
            Sinks.Empty<Void> done = Sinks.empty();
            open.add(done);
            return done.asMono().thenReturn(attempts);
        }

        @Override
        public boolean available() {
            return available.get();
        }

        @Override
        public boolean holdsBackWork() {
            return holdsBack;
        }

        @Override
        public boolean mayHaveLeftRowsOfItsKeys(List<Row> batch) {
            return leftRows;
        }

        @Override
        public Mono<Void> probe() {
            return Mono.fromRunnable(probes::incrementAndGet);
        }

        void finishOldest() {
            open.remove(0).tryEmitEmpty();
        }

        void finishAll() {
            finishImmediately = true;
            while (!open.isEmpty()) {
                finishOldest();
            }
        }
    }
}
