package dev.dispatcher.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own on this JVM's JDK: a main class on a class path, or an executable jar, with its standard output
 * and standard error each going to a file of its own, which tests read while it runs. {@link #close()} stops it as a
 * platform does (SIGTERM, so Spring Boot shuts down gracefully), waits for it to exit, and kills it after
 * {@link #STOP_TIMEOUT_SECONDS} seconds; a shutdown hook stops it too if this JVM exits first.
 *
 * <p>Thread-safe: {@link #output()} reads the file afresh on each call, complete lines only.
 */
public final class JvmProcess implements AutoCloseable {

    /** How long {@link #close()} waits for the JVM to exit after SIGTERM before it kills it. */
    public static final long STOP_TIMEOUT_SECONDS = 60;

    private final Process process;
    private final Path output;
    private final Path errors;
    private final Thread stopAtExit;

    private JvmProcess(Process process, Path output, Path errors) {
        this.process = process;
        this.output = output;
        this.errors = errors;
        this.stopAtExit = new Thread(process::destroy, "dispatcher-jvm-stop-" + process.pid());
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /**
     * Starts {@code java jvmOptions... target... arguments...}, where {@code target} is {@code -cp <path> <main>}
     * ({@link #mainClass}) or {@code -jar <file>} ({@link #jar}); standard output goes to {@code <logPrefix>.log},
     * standard error to {@code <logPrefix>.err}, both created (with their directory) or emptied.
     *
     * @throws UncheckedIOException if the JVM cannot be started or the files cannot be written
     */
    public static JvmProcess start(List<String> jvmOptions, List<String> target, List<String> arguments,
            Path logPrefix) {
        List<String> command = new ArrayList<>();
        command.add(javaCommand());
        command.addAll(jvmOptions);
        command.addAll(target);
        command.addAll(arguments);
        Path output = logPrefix.resolveSibling(logPrefix.getFileName() + ".log");
        Path errors = logPrefix.resolveSibling(logPrefix.getFileName() + ".err");
        try {
            Path directory = output.toAbsolutePath().getParent();
            if (directory != null) {
                Files.createDirectories(directory);
            }
            Process process = new ProcessBuilder(command)
                    .redirectOutput(output.toFile())
                    .redirectError(errors.toFile())
                    .start();
            return new JvmProcess(process, output, errors);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** The target that runs {@code mainClass} from {@code classPath}. */
    public static List<String> mainClass(String classPath, String mainClass) {
        return List.of("-cp", classPath, mainClass);
    }

    /** The target that runs the executable {@code jar}. */
    public static List<String> jar(Path jar) {
        return List.of("-jar", jar.toString());
    }

    /** The {@code java} command of the JDK this JVM runs on. */
    public static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * A TCP port that was free a moment ago, for a server the new JVM starts. Another process may take it in between;
     * the server then fails to start, saying so in its output.
     */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /** The lines of its standard output so far. */
    public List<String> output() {
        return lines(output);
    }

    /** The lines of its standard error so far. */
    public List<String> errors() {
        return lines(errors);
    }

    /** Where its standard output goes. */
    public Path outputFile() {
        return output;
    }

    /** The last {@code n} lines of its standard output and error, for a failure message. */
    public String tail(int n) {
        List<String> out = output();
        List<String> err = errors();
        return "last lines of " + output + ":\n" + String.join("\n", out.subList(Math.max(0, out.size() - n),
                out.size())) + "\nlast lines of " + errors + ":\n" + String.join("\n",
                err.subList(Math.max(0, err.size() - n), err.size()));
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Its exit status; only once it has exited. */
    public int exitValue() {
        return process.exitValue();
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Stops it with SIGTERM and waits up to {@value #STOP_TIMEOUT_SECONDS} seconds for it to exit, then kills it.
     * Returns its exit status.
     */
    public int stop() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping process " + process.pid(), e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // this JVM is exiting: the hook runs anyway
        }
        return process.exitValue();
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** The complete lines of {@code file}: a last line still being written (no line end yet) is left for later. */
    private static List<String> lines(Path file) {
        String text;
        try {
            text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        int end = text.lastIndexOf('\n');
        return end < 0 ? List.of() : List.of(text.substring(0, end).split("\r?\n", -1));
    }

    @Override
    public String toString() {
        return "JvmProcess[pid " + process.pid() + ", output " + output + "]";
    }
}
