package dev.dispatcher.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Warm-up rounds repeated until the JVM under test has nearly stopped compiling, so a benchmark measures the relay
 * and not the JIT compiler.
 *
 * <p>Why: a fixed warm-up of 20,000 rows left the service jar compiling during the measured drain. async-profiler
 * (cpu mode, 4 s windows) on a service started a few seconds earlier showed the C2 compiler threads taking 45-54% of
 * the service's CPU throughout the drain, on 2 cores that the relay, PostgreSQL, the broker and the consumer share;
 * the same drain after 200,000 warm-up rows ran at 21,507 msgs/s instead of 17,209. A deployed relay runs for days,
 * so its compiled steady state is what users get.
 *
 * <p>The measure: the JVM's total compilation time ({@code CompilationMXBean}, or the service's {@code
 * jvm_compilation_time_ms_total} from its Prometheus endpoint) during a round, over the round's wall time. Rounds
 * repeat until that share falls to {@link #SETTLED_SHARE} or {@link #MAX_ROUNDS} have run.
 */
final class JitWarmUp {

    /** Compilation time per wall time at which a round counts as compiled: 5% of one compiler thread. */
    static final double SETTLED_SHARE = 0.05;
    /**
     * At most this many rounds, settled or not (the last round's share is printed either way): {@code
     * -Ddispatcher.bench.warmup-rounds}, default 20; 1 is the fixed warm-up of one {@code --warmup} drain.
     */
    static final int MAX_ROUNDS = Integer.getInteger("dispatcher.bench.warmup-rounds", 20);

    private static final Pattern PROMETHEUS_COMPILATION =
            Pattern.compile("(?m)^jvm_compilation_time_ms_total(?:\\{[^}]*})? ([0-9.eE+]+)$");

    private JitWarmUp() {
    }

    /** One warm-up round; returns the messages it drained. */
    interface Round {
        long run() throws Exception;
    }

    /** Total compilation time so far of the JVM under test, in ms. */
    interface CompilationClock {
        long millis() throws Exception;
    }

    /**
     * Runs {@code round} until a round's compilation share is at most {@link #SETTLED_SHARE} (at least once, at most
     * {@link #MAX_ROUNDS} times), printing each round; returns the messages drained over all rounds.
     */
    static long untilCompiled(String what, CompilationClock compilation, Round round) throws Exception {
        return untilCompiled(what, compilation, round, MAX_ROUNDS);
    }

    /** {@link #untilCompiled(String, CompilationClock, Round)} with at most {@code maxRounds} rounds. */
    static long untilCompiled(String what, CompilationClock compilation, Round round, int maxRounds)
            throws Exception {
        return untilCompiled(what, compilation, () -> { }, round, maxRounds);
    }

    /** Untimed work before a round (seeding a backlog), outside the compilation share. */
    interface Preparation {
        void run() throws Exception;
    }

    /**
     * {@link #untilCompiled(String, CompilationClock, Round)} with {@code prepare} run before each round, outside the
     * round's wall time and compilation share (an idle wait there would dilute the share).
     */
    static long untilCompiled(String what, CompilationClock compilation, Preparation prepare, Round round,
            int maxRounds) throws Exception {
        long total = 0;
        for (int i = 1; i <= maxRounds; i++) {
            prepare.run();
            Phase phase = Phase.start(compilation);
            total += round.run();
            double share = phase.compilingShare();
            boolean settled = share <= SETTLED_SHARE;
            String end = settled ? " (settled)" : i == maxRounds ? " (round limit)" : "";
            System.out.printf(Locale.ROOT, "warm-up %s round %d: %.1f s, compiling %.0f%% of the time%s%n", what, i,
                    phase.wallMillis() / 1000, share * 100, end);
            if (settled) {
                break;
            }
        }
        return total;
    }

    /** A phase of a run (a warm-up round, the measured drain): the compilation time it saw over its wall time. */
    static final class Phase {

        private final CompilationClock clock;
        private final long compiledBefore;
        private final long startNanos;

        private Phase(CompilationClock clock) throws Exception {
            this.clock = clock;
            this.compiledBefore = clock.millis();
            this.startNanos = System.nanoTime(); // after the reading: a service's answers over HTTP
        }

        /** Starts the phase now. */
        static Phase start(CompilationClock clock) throws Exception {
            return new Phase(clock);
        }

        double wallMillis() {
            return (System.nanoTime() - startNanos) / 1e6;
        }

        /** Compilation time since the start over the wall time since the start (1.0: one compiler thread busy). */
        double compilingShare() throws Exception {
            return (clock.millis() - compiledBefore) / Math.max(wallMillis(), 1.0);
        }
    }

    /** This JVM's compilation time (the in-process relay's). */
    static CompilationClock thisJvm() {
        return () -> ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    /** A service's compilation time, read from its Prometheus endpoint ({@link ServiceProcess#prometheus}). */
    static CompilationClock service(ServiceProcess service) {
        return () -> compilationMillis(service.prometheus());
    }

    /** {@code jvm_compilation_time_ms_total} in a Prometheus text exposition. */
    static long compilationMillis(String exposition) throws IOException {
        Matcher m = PROMETHEUS_COMPILATION.matcher(exposition);
        if (!m.find()) {
            throw new IOException("no jvm_compilation_time_ms_total in the service's Prometheus output");
        }
        return (long) Double.parseDouble(m.group(1));
    }
}
