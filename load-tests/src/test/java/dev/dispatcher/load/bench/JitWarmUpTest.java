package dev.dispatcher.load.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {

    @Test
    void readsTheCompilationTimeOfAPrometheusExposition() throws IOException {
        String exposition = """
                # HELP jvm_compilation_time_ms_total The approximate accumulated elapsed time spent in compilation
                # TYPE jvm_compilation_time_ms_total counter
                jvm_compilation_time_ms_total{application="dispatcher",compiler="HotSpot 64-Bit Tiered Compilers"} 51234.0
                jvm_gc_pause_seconds_count{action="end of minor GC"} 12
                """;

        assertThat(PrometheusText.compilationMillis(exposition)).isEqualTo(51_234L);
        assertThat(PrometheusText.compilationMillis("jvm_compilation_time_ms_total 7.0\n")).isEqualTo(7L);
    }

    @Test
    void anExpositionWithoutTheCompilationTimeIsAnError() {
        assertThatThrownBy(() -> PrometheusText.compilationMillis("jvm_threads_live_threads 40\n"))
                .isInstanceOf(IOException.class).hasMessageContaining("jvm_compilation_time_ms_total");
    }

    @Test
    void roundsRepeatUntilOneCompilesForAtMostTheSettledShareOfItsTime() throws Exception {
        // compilation clock readings around each round: a round that took ~20 ms and compiled 0 ms settles
        Deque<Long> readings = new ArrayDeque<>(List.of(0L, 1_000L, 1_000L, 2_000L, 2_000L, 2_000L));
        AtomicInteger rounds = new AtomicInteger();

        JitWarmUp.Result drained = JitWarmUp.untilCompiled("test", readings::removeFirst, () -> {
            rounds.incrementAndGet();
            Thread.sleep(20); // a test thread: stands in for a round's drain
            return 100;
        });

        assertThat(rounds).as("two compiling rounds, then one that compiled nothing").hasValue(3);
        assertThat(drained).as("every round's rows, and the rounds, for warmup_n and warmup_rounds")
                .isEqualTo(new JitWarmUp.Result(300, 3));
    }

    @Test
    void roundsStopAtTheLimitWhenTheJvmKeepsCompiling() throws Exception {
        AtomicInteger rounds = new AtomicInteger();
        long[] clock = {0};

        JitWarmUp.Result drained = JitWarmUp.untilCompiled("test", () -> clock[0] += 1_000_000, () -> {
            rounds.incrementAndGet();
            return 1;
        });

        assertThat(rounds).hasValue(JitWarmUp.MAX_ROUNDS);
        assertThat(drained).isEqualTo(new JitWarmUp.Result(JitWarmUp.MAX_ROUNDS, JitWarmUp.MAX_ROUNDS));
    }

    @Test
    void aRoundsPreparationRunsBeforeItAndOutsideItsCompilationShare() throws Exception {
        // compilation during the preparation (the seeding of a paused relay's backlog) is not the round's:
        // the clock jumps while preparing, and stands still while the round drains, so the first round settles
        long[] clock = {0};
        List<String> order = new ArrayList<>();

        JitWarmUp.Result drained = JitWarmUp.untilCompiled("test", () -> clock[0], () -> {
            order.add("prepare");
            clock[0] += 1_000_000;
        }, () -> {
            order.add("round");
            Thread.sleep(20); // a test thread: stands in for a round's drain
            return 5;
        }, 4);

        assertThat(order).containsExactly("prepare", "round");
        assertThat(drained).isEqualTo(new JitWarmUp.Result(5, 1));
    }
}
