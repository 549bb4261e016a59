package dev.dispatcher.load.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the servers' logs go, so that a benchmark's console holds only its progress lines and its RESULT: the
 * embedded PostgreSQL, the in-process broker and an in-process service log through the harness's {@code
 * logback.xml} to {@link #harnessLog()}; a service in its own JVM writes its output to a file of its own beside it
 * ({@link #serviceLog}). The directory is {@code -Ddispatcher.bench.log-dir} ({@code load-tests/target/bench-logs}
 * under Maven), {@code target/bench-logs} otherwise.
 */
public final class BenchLog {

    /** The system property naming the directory; the harness's {@code logback.xml} reads it too. */
    public static final String DIR_PROPERTY = "dispatcher.bench.log-dir";

    private BenchLog() {
    }

    public static Path dir() {
        return Path.of(System.getProperty(DIR_PROPERTY, "target/bench-logs")).toAbsolutePath();
    }

    /** The harness JVM's log: embedded PostgreSQL, the broker, in-process services. */
    public static Path harnessLog() {
        return dir().resolve("harness.log");
    }

    /** The output of a service or reference relay in its own JVM, {@code <dir>/<name>.log}. */
    public static Path serviceLog(String name) {
        return dir().resolve(name + ".log");
    }

    /**
     * Starts a run's logs: empties the harness's log (before anything logs to it), and says where the logs go.
     * Call first in {@code main}.
     */
    public static void startRun() {
        try {
            Files.createDirectories(dir());
            Files.deleteIfExists(harnessLog());
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare the log directory " + dir(), e);
        }
        System.out.println("logs: " + harnessLog() + " (embedded PostgreSQL, Kafka, in-process services); services in"
                + " their own JVM to " + dir() + "/*.log");
    }
}
