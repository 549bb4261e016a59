package dev.dispatcher.load.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A long phase's progress line, printed at most every {@link #EVERY}: the phase's name, the seconds since it started
 * and what the caller says about it. A benchmark's console holds these lines and its RESULT; the servers' logs go to
 * a file ({@link BenchLog}). A phase that is one blocking call (starting servers or a service) is timed by {@link
 * #during}, whose ticker thread prints while the caller waits.
 */
public final class Progress {

    /** How often a phase says how it is doing. */
    public static final Duration EVERY = Duration.ofSeconds(3);

    private final String phase;
    private final long startNanos;
    private long nextNanos;

    private Progress(String phase, long startNanos) {
        this.phase = phase;
        this.startNanos = startNanos;
        this.nextNanos = startNanos + EVERY.toNanos();
    }

    /** A phase starting now. */
    public static Progress of(String phase) {
        return new Progress(phase, System.nanoTime());
    }

    /** A phase that started at {@code startNanos} ({@link System#nanoTime()}). */
    public static Progress since(String phase, long startNanos) {
        return new Progress(phase, startNanos);
    }

    /** Seconds since the phase started. */
    public double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Prints {@code phase: <seconds>s <line>} if {@link #EVERY} has passed since the last line. */
    public void maybePrint(Supplier<String> line) {
        long now = System.nanoTime();
        if (now >= nextNanos) {
            nextNanos = now + EVERY.toNanos();
            System.out.printf(Locale.ROOT, "%s: %6.1fs %s%n", phase, seconds(), line.get());
        }
    }

    /**
     * Runs {@code work} on this thread, printing {@code phase: <seconds>s <doing>} every {@link #EVERY} from a daemon
     * ticker while it runs and {@code phase: <done> in <seconds> s} when it returns; returns what it returned.
     */
    public static <T> T during(String phase, String doing, String done, Callable<T> work) throws Exception {
        Progress progress = of(phase);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "bench-progress");
            thread.setDaemon(true);
            return thread;
        });
        long every = EVERY.toMillis();
        ticker.scheduleAtFixedRate(() -> System.out.printf(Locale.ROOT, "%s: %6.1fs %s%n", phase, progress.seconds(),
                doing), every, every, TimeUnit.MILLISECONDS);
        T result;
        try {
            result = work.call();
        } finally {
            ticker.shutdownNow();
            ticker.awaitTermination(1, TimeUnit.SECONDS); // no tick after the closing line
        }
        System.out.printf(Locale.ROOT, "%s: %s in %.1f s%n", phase, done, progress.seconds());
        return result;
    }

    /** A line for a phase counting {@code done} of {@code total} messages: how many, and at what rate. */
    public String count(long done, long total, String what) {
        return String.format(Locale.ROOT, "%s %d of %d, %.0f msgs/s", what, done, total, done / seconds());
    }
}
