package dev.dispatcher.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs podman and the image's scripts as child processes, each with a bound on how long it may take. */
final class Podman {

    /** What a command printed (standard output and error together) and how it exited. */
    record Result(int exitCode, String output) {

        boolean ok() {
            return exitCode == 0;
        }

        /** The output's last lines, for a failure's message. */
        String tail() {
            List<String> lines = output.lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
    }

    private Podman() {
    }

    /** Whether podman is installed and can reach its storage and runtime ({@code podman info} succeeds). */
    static boolean usable() {
        try {
            return run(Duration.ofSeconds(60), Map.of(), "podman", "info").ok();
        } catch (IllegalStateException e) {
            return false;
        }
    }

    static Result podman(Duration timeout, String... arguments) {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(arguments));
        return run(timeout, Map.of(), command.toArray(String[]::new));
    }

    /**
     * Runs {@code command} with {@code environment} added to this JVM's, and waits for it.
     *
     * @throws IllegalStateException if it cannot be started or does not end within {@code timeout} (then it is killed)
     */
    static Result run(Duration timeout, Map<String, String> environment, String... command) {
        Path output = null;
        try {
            output = Files.createTempFile("dispatcher-image", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not end within " + timeout + ": "
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }
}
