package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

class PeriodicPassTest {

    private VirtualTimeScheduler time;

    @BeforeEach
    void virtualTime() {
        time = VirtualTimeScheduler.getOrSet();
    }

    @AfterEach
    void realTime() {
        VirtualTimeScheduler.reset();
    }

    @Test
    void runsFirstAfterItsDelayThenOnEveryTick() {
        AtomicInteger runs = new AtomicInteger();
        PeriodicPass pass = new PeriodicPass(() -> Mono.fromRunnable(runs::incrementAndGet), e -> { });

        pass.start(Duration.ofSeconds(1), Duration.ofSeconds(5));
        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(runs).hasValue(0);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(runs).hasValue(1);
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(runs).hasValue(3);
        pass.stop();
    }

    @Test
    void aSlowPassIsNeverOverlappedAndTicksMeanwhileAreDropped() {
        AtomicInteger started = new AtomicInteger();
        PeriodicPass pass = new PeriodicPass(() -> Mono.delay(Duration.ofMillis(3500))
                .doOnSubscribe(s -> started.incrementAndGet()).then(), e -> { });

        pass.start(Duration.ZERO, Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofSeconds(3));
        assertThat(started).as("one pass in flight, the ticks during it dropped").hasValue(1);
        time.advanceTimeBy(Duration.ofMillis(1500));
        assertThat(started).as("the first tick after the pass ended").hasValue(2);
        pass.stop();
    }

    @Test
    void aFailedPassIsReportedAndTheNextTickRunsAgain() {
        List<Throwable> failures = new ArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        PeriodicPass pass = new PeriodicPass(() -> Mono.error(new IllegalStateException("pass " + runs.incrementAndGet())),
                failures::add);

        pass.start(Duration.ZERO, Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofSeconds(2));
        assertThat(runs).hasValue(3);
        assertThat(failures).extracting(Throwable::getMessage).containsExactly("pass 1", "pass 2", "pass 3");
        pass.stop();
    }

    @Test
    void stopsAndStartsAgain() {
        AtomicInteger runs = new AtomicInteger();
        PeriodicPass pass = new PeriodicPass(() -> Mono.fromRunnable(runs::incrementAndGet), e -> { });

        pass.start(Duration.ZERO, Duration.ofSeconds(1));
        pass.start(Duration.ZERO, Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofMillis(500));
        assertThat(runs).as("a second start while running is a no-op").hasValue(1);
        pass.stop();
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(runs).hasValue(1);
        pass.start(Duration.ZERO, Duration.ofSeconds(1));
        time.advanceTimeBy(Duration.ofMillis(500));
        assertThat(runs).hasValue(2);
        pass.stop();
    }
}
