package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

class WakeSignalTest {

    /**
     * How long a verification may take in real time: the signals under test arrive at once (or in virtual time), so
     * this only has to exceed a stall of a loaded machine while staying far below the waiters' minute-long timeouts.
     */
    private static final Duration VERIFY = Duration.ofSeconds(10);

    @Test
    void aWakeUpBeforeTheWaitReleasesItAtOnce() {
        WakeSignal signal = new WakeSignal();
        long seen = signal.generation();
        signal.wake();

        StepVerifier.create(signal.awaitAfter(seen, Duration.ofMinutes(1))).expectComplete().verify(VERIFY);
    }

    @Test
    void aWaiterIsReleasedByTheNextWakeUpAndOtherwiseByItsTimeout() {
        WakeSignal signal = new WakeSignal();
        long seen = signal.generation();

        StepVerifier.create(signal.awaitAfter(seen, Duration.ofMinutes(1)))
                .then(signal::wake)
                .expectComplete()
                .verify(VERIFY);
        StepVerifier.withVirtualTime(() -> signal.awaitAfter(signal.generation(), Duration.ofSeconds(5)))
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(4))
                .thenAwait(Duration.ofSeconds(1))
                .expectComplete()
                .verify(VERIFY);
    }

    /** Wake-ups from many threads at once never fail, and every waiter that saw an older generation is released. */
    @Test
    void concurrentWakeUpsNeverFailAndNeverStrandAWaiter() throws Exception {
        WakeSignal signal = new WakeSignal();
        int threads = 8;
        int wakesPerThread = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger released = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> wakers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            wakers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < wakesPerThread; i++) {
                        signal.wake();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        // Waiters subscribe while the wake-ups run; each must complete by a wake-up, not by its long timeout.
        CountDownLatch waiters = new CountDownLatch(1_000);
        start.countDown();
        for (int i = 0; i < 1_000; i++) {
            signal.awaitAfter(signal.generation(), Duration.ofMinutes(5)).subscribe(null, failure::set, () -> {
                released.incrementAndGet();
                waiters.countDown();
            });
            if (i % 100 == 99) {
                signal.wake();
            }
        }
        for (Thread t : wakers) {
            t.join();
        }
        signal.wake();

        assertThat(waiters.await(10, TimeUnit.SECONDS)).as("every waiter released").isTrue();
        assertThat(failure.get()).isNull();
        assertThat(released.get()).isEqualTo(1_000);
        assertThat(signal.generation()).isEqualTo((long) threads * wakesPerThread + 11);
    }
}
