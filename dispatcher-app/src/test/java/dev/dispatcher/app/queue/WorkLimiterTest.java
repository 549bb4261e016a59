package dev.dispatcher.app.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/** A consumer's concurrency is exact across batches, in submission order, and cancelled work frees its slot. */
class WorkLimiterTest {

    @Test
    void neverRunsMoreThanTheLimitAcrossSubmittersAndRunsEverything() {
        WorkLimiter limiter = new WorkLimiter(4);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        Mono<Integer> work = Mono.defer(() -> {
                    peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                    return Mono.delay(Duration.ofMillis(2), Schedulers.parallel());
                })
                // counted down before the completion travels on: the limiter frees the slot on that signal
                .doOnTerminate(running::decrementAndGet)
                .thenReturn(1);

        // three "batches" submitting from different threads at once, each without a bound of its own
        Integer done = Flux.range(0, 3)
                .flatMap(batch -> Flux.range(0, 100)
                        .flatMap(i -> limiter.run(work), Integer.MAX_VALUE)
                        .subscribeOn(Schedulers.parallel()))
                .reduce(0, Integer::sum)
                .block(Duration.ofSeconds(30));

        assertThat(done).isEqualTo(300);
        assertThat(peak.get()).isEqualTo(4);
        assertThat(limiter.running()).isZero();
    }

    @Test
    void startsWorkInSubmissionOrder() {
        WorkLimiter limiter = new WorkLimiter(1);
        List<Integer> started = new ArrayList<>();
        Sinks.Empty<Void> gate = Sinks.empty();
        List<Disposable> runs = new ArrayList<>();
        runs.add(limiter.run(gate.asMono()).subscribe());
        for (int i = 0; i < 5; i++) {
            int n = i;
            runs.add(limiter.run(Mono.fromRunnable(() -> started.add(n))).subscribe());
        }
        assertThat(started).isEmpty();

        gate.tryEmitEmpty();

        assertThat(started).containsExactly(0, 1, 2, 3, 4);
        runs.forEach(Disposable::dispose);
    }

    @Test
    void cancellingRunningOrWaitingWorkFreesItsSlot() {
        WorkLimiter limiter = new WorkLimiter(1);
        Disposable running = limiter.run(Mono.never()).subscribe();
        AtomicInteger ran = new AtomicInteger();
        Disposable waiting = limiter.run(Mono.fromRunnable(ran::incrementAndGet)).subscribe();
        Disposable third = limiter.run(Mono.fromRunnable(ran::incrementAndGet)).subscribe();
        assertThat(limiter.running()).isEqualTo(1);

        waiting.dispose();
        running.dispose();

        assertThat(ran.get()).as("the cancelled waiter never runs, the third one does").isEqualTo(1);
        assertThat(limiter.running()).isZero();
        third.dispose();
    }
}
