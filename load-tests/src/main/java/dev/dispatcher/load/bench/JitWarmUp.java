package dev.dispatcher.load.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Warm-up rounds repeated until the JVM under test has nearly stopped compiling, so a benchmark measures the relay
 * and not the JIT compiler.
 *
 * <p>Why: a deployed relay runs for days, so its compiled steady state is what users get; a fixed warm-up left the
 * service's C2 compiler threads taking about half its CPU through the measured drain (docs/measurements.md).
 *
 * <p>The measure: the JVM's total compilation time ({@code CompilationMXBean}, or the service's {@code
 * jvm_compilation_time_ms_total} from its Prometheus endpoint) during a round, over the round's wall time. Rounds
 * repeat until that share falls to {@link #SETTLED_SHARE} or {@link #MAX_ROUNDS} have run; so a warm-up of {@code
 * --warmup N} rows drains N to {@code MAX_ROUNDS x N} rows, and the RESULT says how many ({@code warmup_n}) in how
 * many rounds ({@code warmup_rounds}).
 */
public final class JitWarmUp {

    /** Compilation time per wall time at which a round counts as compiled: 5% of one compiler thread. */
    public static final double SETTLED_SHARE = 0.05;
    /** {@link #MAX_ROUNDS} unless {@code -Ddispatcher.bench.warmup-rounds} says otherwise. */
    public static final int DEFAULT_MAX_ROUNDS = 20;
    /**
     * At most this many rounds, settled or not (the last round's share is printed either way): {@code
     * -Ddispatcher.bench.warmup-rounds}, default 20; 1 is the fixed warm-up of one {@code --warmup} drain.
     */
    public static final int MAX_ROUNDS = Integer.getInteger("dispatcher.bench.warmup-rounds", DEFAULT_MAX_ROUNDS);

    private JitWarmUp() {
    }

    /** One warm-up round; returns the messages it drained. */
    public interface Round {
        long run() throws Exception;
    }

    /** Total compilation time so far of the JVM under test, in ms. */
    public interface CompilationClock {
        long millis() throws Exception;
    }

    /**
     * What a warm-up drained, for the RESULT's {@code warmup_n} and {@code warmup_rounds}.
     *
     * @param rows messages drained over all rounds
     * @param rounds rounds run
     */
    public record Result(long rows, int rounds) {

        /** No warm-up. */
        public static final Result NONE = new Result(0, 0);
    }

    /**
     * Runs {@code round} until a round's compilation share is at most {@link #SETTLED_SHARE} (at least once, at most
     * {@link #MAX_ROUNDS} times), printing each round; returns the messages drained and the rounds run.
     */
    public static Result untilCompiled(String what, CompilationClock compilation, Round round) throws Exception {
        return untilCompiled(what, compilation, round, MAX_ROUNDS);
    }

    /** {@link #untilCompiled(String, CompilationClock, Round)} with at most {@code maxRounds} rounds. */
    public static Result untilCompiled(String what, CompilationClock compilation, Round round, int maxRounds)
            throws Exception {
        return untilCompiled(what, compilation, () -> { }, round, maxRounds);
    }

    /** Untimed work before a round (seeding a backlog), outside the compilation share. */
    public interface Preparation {
        void run() throws Exception;
    }

    /**
     * {@link #untilCompiled(String, CompilationClock, Round)} with {@code prepare} run before each round, outside the
     * round's wall time and compilation share (an idle wait there would dilute the share).
     */
    public static Result untilCompiled(String what, CompilationClock compilation, Preparation prepare, Round round,
            int maxRounds) throws Exception {
        long total = 0;
        int rounds = 0;
        for (int i = 1; i <= maxRounds; i++) {
            rounds = i;
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
        return new Result(total, rounds);
    }

    /** A phase of a run (a warm-up round, the measured drain): the compilation time it saw over its wall time. */
    public static final class Phase {

        private final CompilationClock clock;
        private final long compiledBefore;
        private final long startNanos;

        private Phase(CompilationClock clock) throws Exception {
            this.clock = clock;
            this.compiledBefore = clock.millis();
            this.startNanos = System.nanoTime(); // after the reading: a service's answers over HTTP
        }

        /** Starts the phase now. */
        public static Phase start(CompilationClock clock) throws Exception {
            return new Phase(clock);
        }

        public double wallMillis() {
            return (System.nanoTime() - startNanos) / 1e6;
        }

        /** Compilation time since the start over the wall time since the start (1.0: one compiler thread busy). */
        public double compilingShare() throws Exception {
            return (clock.millis() - compiledBefore) / Math.max(wallMillis(), 1.0);
        }
    }

    /** This JVM's compilation time (an in-process service's, with the harness's own). */
    public static CompilationClock thisJvm() {
        return () -> ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    /** A service's compilation time, read from its Prometheus endpoint. */
    public static CompilationClock service(ServiceClient service) {
        return () -> PrometheusText.compilationMillis(service.prometheus());
    }

    /** The mean of {@code services}' compilation times, so a settled share means the same for any number of them. */
    public static CompilationClock meanOf(java.util.List<ServiceClient> services) {
        return () -> {
            long sum = 0;
            for (ServiceClient service : services) {
                sum += PrometheusText.compilationMillis(service.prometheus());
            }
            return sum / services.size();
        };
    }
}
