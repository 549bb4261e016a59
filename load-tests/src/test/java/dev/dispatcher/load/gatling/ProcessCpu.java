package dev.dispatcher.load.gatling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * CPU time used so far by the processes of this host whose command name is {@code postgres} (the server and its
 * backends), read from {@code /proc}, so a run can say how the machine's cores were shared between the service,
 * the load generator and the database. Zero where there is no {@code /proc} or the database runs elsewhere.
 */
final class ProcessCpu {

    private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

    private ProcessCpu() {
    }

    static Duration postgres() {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return Duration.ZERO;
        }
        long ticks = 0;
        try (Stream<Path> entries = Files.list(proc)) {
            for (Path p : (Iterable<Path>) entries.filter(e -> e.getFileName().toString().matches("\\d+"))::iterator) {
                try {
                    if (!Files.readString(p.resolve("comm")).trim().equals("postgres")) {
                        continue;
                    }
                    String stat = Files.readString(p.resolve("stat"));
                    // fields after the command name in parentheses; utime and stime are fields 14 and 15
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException gone) {
                    // the process ended between listing and reading: its time is not counted
                }
            }
        } catch (IOException e) {
            return Duration.ZERO;
        }
        return Duration.ofMillis(ticks * 1000 / TICKS_PER_SECOND);
    }

    /** This JVM's CPU time (the load generator). */
    static Duration self() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    }
}
