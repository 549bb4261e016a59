package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class CostBoundedReadTest {

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicInteger reads = new AtomicInteger();
    /** Each read returns its number and takes {@code cost} nanoseconds of the fake clock. */
    private final AtomicLong cost = new AtomicLong();
    private final CostBoundedRead<Integer> read = new CostBoundedRead<>(
            () -> Mono.fromSupplier(() -> {
                clock.addAndGet(cost.get());
                return reads.incrementAndGet();
            }), 50, clock::get);

    @Test
    void aCheapReadRunsOnEveryPoll() {
        cost.set(0);
        for (int i = 1; i <= 3; i++) {
            assertThat(read.get().block()).isEqualTo(i);
            clock.addAndGet(1);
        }
    }

    @Test
    void anExpensiveReadWaitsFiftyTimesItsCostAndThePollsBetweenReuseItsValue() {
        cost.set(200);
        assertThat(read.get().block()).isEqualTo(1);
        clock.addAndGet(9_000); // 9,200 since the read started: under 50 x 200
        assertThat(read.get().block()).as("reused").isEqualTo(1);
        clock.addAndGet(800); // 10,000 since it started
        assertThat(read.get().block()).as("read again").isEqualTo(2);
        assertThat(reads).hasValue(2);
    }

    @Test
    void aReadThatGotCheaperRunsSoonerAgain() {
        cost.set(1_000);
        read.get().block();
        cost.set(0);
        clock.addAndGet(49_000); // 50,000 since the first read started
        assertThat(read.get().block()).isEqualTo(2);
        assertThat(read.get().block()).as("free: every poll").isEqualTo(3);
    }

    @Test
    void aFailedReadIsTriedAgainAtTheNextPoll() {
        AtomicInteger calls = new AtomicInteger();
        CostBoundedRead<Integer> failing = new CostBoundedRead<>(() -> calls.incrementAndGet() == 1
                ? Mono.error(new IllegalStateException("down")) : Mono.just(7), 50, clock::get);
        assertThat(failing.get().onErrorReturn(-1).block()).isEqualTo(-1);
        assertThat(failing.get().block()).isEqualTo(7);
    }

    @Test
    void theRatioMustBePositive() {
        assertThatIllegalArgumentException().isThrownBy(() -> new CostBoundedRead<>(Mono::empty, 0, clock::get))
                .withMessageContaining("costRatio");
    }
}
