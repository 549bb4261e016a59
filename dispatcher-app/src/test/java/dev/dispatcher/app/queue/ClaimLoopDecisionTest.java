package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.domain.Transition;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The kernel decides once: each batch is worked by one strategy call, each attempt's transition is decided once (a
 * retry draws its jitter once), the dead letters go to the loop's {@link DeadLetterPort} before the write, and the
 * write is of those very decisions.
 */
class ClaimLoopDecisionTest extends ClaimLoopFixture {

    @Test
    void aBatchIsWorkedOnceAndItsDeadLettersAreHandedOnBeforeTheDecidedTransitionsAreWritten() {
        List<DeadLetterPort.DeadLetter<Row>> handedOn = new CopyOnWriteArrayList<>();
        AtomicInteger writtenBeforeHandOn = new AtomicInteger(-1);
        deadLetters = letters -> Mono.fromRunnable(() -> {
            writtenBeforeHandOn.set(queue.written.size());
            handedOn.addAll(letters);
        });
        strategy.result = new DispatchResult.Failed(FailureKind.PERMANENT, "refused");
        strategy.finishImmediately = true;
        AtomicInteger claim = new AtomicInteger();
        queue.rowsPerClaim = () -> claim.incrementAndGet() == 1 ? 3 : 0;

        start();

        assertThat(strategy.works).as("one call per batch").hasValue(1);
        assertThat(writtenBeforeHandOn).as("nothing written before the dead letters were handed on").hasValue(0);
        assertThat(handedOn).extracting(DeadLetterPort.DeadLetter::reason)
                .containsOnly("permanent failure: refused").hasSize(3);
        assertThat(queue.written).extracting(TransitionRequest::transition)
                .containsOnly(new Transition.DeadLetter("permanent failure: refused")).hasSize(3);
        assertThat(queue.written).extracting(r -> r.leased().id())
                .containsExactlyInAnyOrderElementsOf(handedOn.stream().map(d -> d.message().leased().id()).toList());
    }

    @Test
    void aDeadLetterPortThatFailsLeavesTheRowsDeadLetteredInTheTableAlone() {
        deadLetters = letters -> Mono.error(new IllegalStateException("dead-letter topic down"));
        strategy.result = new DispatchResult.Failed(FailureKind.PERMANENT, "refused");
        strategy.finishImmediately = true;
        AtomicInteger claim = new AtomicInteger();
        queue.rowsPerClaim = () -> claim.incrementAndGet() == 1 ? 2 : 0;

        start();

        assertThat(queue.written).extracting(TransitionRequest::transition)
                .containsOnly(new Transition.DeadLetter("permanent failure: refused")).hasSize(2);
    }

    @Test
    void aRetryDrawsItsJitterOnceAndTheWriteCarriesThatDraw() {
        CountingRandom random = new CountingRandom();
        policy = RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(10), 2.0, Jitter.FULL, 5, random);
        strategy.result = new DispatchResult.Failed(FailureKind.TRANSIENT, "timed out");
        strategy.finishImmediately = true;
        AtomicInteger claim = new AtomicInteger();
        queue.rowsPerClaim = () -> claim.incrementAndGet() == 1 ? 4 : 0;

        start();

        assertThat(queue.written).hasSize(4).allSatisfy(r -> assertThat(r.transition())
                .isInstanceOf(Transition.ScheduleRetry.class));
        assertThat(random.draws).as("one draw per retry decision").hasValue(4);
    }

    /** Counts the draws the policy makes (a bounded long); each delegates to a seeded generator. */
    private static final class CountingRandom implements RandomGenerator {
        final AtomicInteger draws = new AtomicInteger();
        private final SplittableRandom random = new SplittableRandom(7);

        @Override
        public long nextLong() {
            draws.incrementAndGet();
            return random.nextLong();
        }

        @Override
        public long nextLong(long bound) {
            draws.incrementAndGet();
            return random.nextLong(bound);
        }

        @Override
        public long nextLong(long origin, long bound) {
            draws.incrementAndGet();
            return random.nextLong(origin, bound);
        }
    }
}
