package dev.dispatcher.load.bench;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Dispatcher service in its own JVM, as users deploy it: {@code java -jar} on dispatcher-app's exec jar ({@link
 * Launch.Jar}), or its main class on the harness's class path ({@link Launch.ClassPath}, no jar needed), with the
 * same JDK as this harness and no JVM options but those asked for; or the container image built from that jar ({@link
 * Launch.Image}, {@code podman run} on the host's network). Its output goes to a log file; starting waits
 * until {@code /actuator/health} answers {@code UP}. Closing stops it gracefully (SIGTERM), as a platform would, and
 * waits for it to exit.
 */
public final class ServiceProcess implements AutoCloseable {

    /** The service's main class, for {@link Launch.ClassPath}. */
    static final String MAIN_CLASS = "dev.dispatcher.app.DispatcherApplication";
    /** Logging to standard output for a JVM on the harness's class path (whose logback.xml logs to a file). */
    public static final String CHILD_LOGGING = "bench-service-logback.xml";

    private final Launch launch;
    private final Process process;
    private final ServiceClient client;
    private final Path log;
    private Duration startup;

    private ServiceProcess(Launch launch, Process process, ServiceClient client, Path log) {
        this.launch = launch;
        this.process = process;
        this.client = client;
        this.log = log;
    }

    /** How the service's JVM is started, and how it is stopped. */
    public sealed interface Launch {

        /** The command before the service's arguments: the JVM (or what runs it) with {@code jvmOptions}. */
        List<String> command(List<String> jvmOptions);

        /** One line for the console: what runs, without the service's arguments. */
        String describe(List<String> jvmOptions);

        /** Asks the service to stop, as a platform does: {@code SIGTERM} to its JVM. */
        default void stop(Process process) {
            process.destroy();
        }

        /** Kills the service (it did not stop in time, or never became healthy). */
        default void kill(Process process) throws InterruptedException {
            process.destroyForcibly().waitFor();
        }

        /** {@code java -jar jar}. */
        record Jar(Path jar) implements Launch {
            @Override
            public List<String> command(List<String> jvmOptions) {
                List<String> command = new ArrayList<>(List.of(javaCommand()));
                command.addAll(jvmOptions);
                command.addAll(List.of("-jar", jar.toString()));
                return command;
            }

            @Override
            public String describe(List<String> jvmOptions) {
                return "java " + String.join(" ", jvmOptions) + (jvmOptions.isEmpty() ? "" : " ") + "-jar " + jar;
            }
        }

        /** {@code java -cp classPath DispatcherApplication}, logging to standard output. */
        record ClassPath(String classPath) implements Launch {
            @Override
            public List<String> command(List<String> jvmOptions) {
                List<String> command = new ArrayList<>(List.of(javaCommand()));
                command.addAll(jvmOptions);
                command.addAll(List.of("-Dlogback.configurationFile=" + CHILD_LOGGING, "-cp", classPath, MAIN_CLASS,
                        "--logging.config=classpath:" + CHILD_LOGGING));
                return command;
            }

            @Override
            public String describe(List<String> jvmOptions) {
                return "java " + String.join(" ", jvmOptions) + (jvmOptions.isEmpty() ? "" : " ")
                        + "-cp <harness class path>";
            }
        }

        /**
         * The container image {@code tag} in the foreground, as docs/deployment.md runs it: {@code podman run --rm
         * --network=host --name container}, the JVM options in {@code JAVA_TOOL_OPTIONS} (which replaces the
         * image's own), the service's arguments after the image (its entry point is {@code java ... -jar}). Stopped
         * with {@code podman stop} (SIGTERM to the JVM, process 1 of the container); {@code podman run} then exits
         * with the JVM's status.
         */
        record Image(String tag, String container) implements Launch {

            /** {@code tag} in a container of a fresh name. */
            public static Image of(String tag) {
                return new Image(tag, "dispatcher-bench-" + UUID.randomUUID().toString().substring(0, 8));
            }

            @Override
            public List<String> command(List<String> jvmOptions) {
                return List.of("podman", "run", "--rm", "--network=host", "--name", container, "--env",
                        "JAVA_TOOL_OPTIONS=" + String.join(" ", jvmOptions), tag);
            }

            @Override
            public String describe(List<String> jvmOptions) {
                return "podman run --rm --network=host --name " + container + " --env JAVA_TOOL_OPTIONS=\""
                        + String.join(" ", jvmOptions) + "\" " + tag;
            }

            @Override
            public void stop(Process process) {
                podman("stop", "--time", "60", container);
            }

            @Override
            public void kill(Process process) throws InterruptedException {
                podman("rm", "--force", container);
                process.destroyForcibly().waitFor();
            }

            private static void podman(String... arguments) {
                List<String> command = new ArrayList<>(List.of("podman"));
                command.addAll(List.of(arguments));
                try {
                    Process p = new ProcessBuilder(command).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                    if (!p.waitFor(2, TimeUnit.MINUTES)) {
                        p.destroyForcibly();
                    }
                } catch (IOException e) {
                    throw new IllegalStateException("cannot run " + String.join(" ", command), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
                }
            }
        }
    }

    /**
     * Starts the service with {@code arguments} (Spring properties as {@code --name=value}, the harness's token
     * added) and {@code jvmOptions}, logging to {@code log}.
     */
    public static ServiceProcess start(Launch launch, List<String> jvmOptions, List<String> arguments,
            ServiceAccess access, Path log) throws IOException, InterruptedException {
        int port = freePort();
        List<String> command = new ArrayList<>(launch.command(jvmOptions));
        command.add("--server.port=" + port);
        command.addAll(access.arguments());
        command.addAll(arguments);
        Files.createDirectories(log.toAbsolutePath().getParent());
        long launched = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServiceProcess service = new ServiceProcess(launch, process,
                new ServiceClient("http://localhost:" + port, access), log);
        service.awaitHealthy(Duration.ofMinutes(3), launched);
        return service;
    }

    /** The JDK this harness runs on. */
    public static String javaCommand() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /** dispatcher-app's exec jar next to this module, or the one {@code -Ddispatcher.service.jar} names. */
    public static Path defaultJar() throws IOException {
        String configured = System.getProperty("dispatcher.service.jar");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (Path dir : List.of(Path.of("dispatcher-app/target"), Path.of("../dispatcher-app/target"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    var jar = files.filter(p -> p.getFileName().toString().endsWith("-exec.jar")).findFirst();
                    if (jar.isPresent()) {
                        return jar.get();
                    }
                }
            }
        }
        throw new IllegalStateException("no dispatcher-app exec jar: build it first (./mvnw -pl dispatcher-app -am"
                + " package -DskipTests) or pass -Ddispatcher.service.jar=...");
    }

    /**
     * The class path this harness was loaded from, for JVMs started on it. Under {@code exec:java} that is the
     * plugin's class loader, while {@code java.class.path} names only Maven's launcher; under {@code java -cp} the
     * two are the same.
     */
    public static String harnessClassPath() {
        if (ServiceProcess.class.getClassLoader() instanceof URLClassLoader loader && loader.getURLs().length > 0) {
            List<String> entries = new ArrayList<>();
            for (URL url : loader.getURLs()) {
                try {
                    entries.add(Path.of(url.toURI()).toString());
                } catch (URISyntaxException | IllegalArgumentException e) {
                    throw new IllegalStateException("class path entry " + url + " is not a file", e);
                }
            }
            return String.join(File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }

    private void awaitHealthy(Duration timeout, long launched) throws InterruptedException {
        Progress progress = Progress.since("service", launched);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            progress.maybePrint(() -> "starting in its own JVM, logging to " + log.getFileName());
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log);
            }
            if (client.healthy()) {
                startup = Duration.ofNanos(System.nanoTime() - launched);
                System.out.printf(Locale.ROOT, "service: healthy in %.1f s (pid %d)%n", progress.seconds(),
                        process.pid());
                return;
            }
            Thread.sleep(250); // the harness's main thread: waiting is its job
        }
        launch.kill(process);
        throw new IllegalStateException("the service did not become healthy within " + timeout + "; see " + log);
    }

    /** The service over HTTP. */
    public ServiceClient client() {
        return client;
    }

    /** From the launch until {@code /actuator/health} first answered {@code UP}. */
    public Duration startup() {
        return startup;
    }

    /** Where its output goes. */
    public Path log() {
        return log;
    }

    /** Whether the service's process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Lines of the service's log that contain {@code text}. */
    public long logLinesContaining(String text) throws IOException {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            return lines.filter(line -> line.contains(text)).count();
        }
    }

    /** The service's process id, for profiling and CPU accounting. */
    public long pid() {
        return process.pid();
    }

    /** CPU time the service's process has used so far. */
    public Duration cpu() {
        return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /**
     * Stops the service gracefully and waits for its exit: up to 5 minutes, since a JVM started with {@code
     * -XX:AOTCacheOutput} (a training run) writes its AOT cache on the way out, which takes a minute or more on a
     * busy machine.
     */
    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /**
     * Stops the service as {@link #close()} does and returns its exit status: 143 for a JVM that exited on {@code
     * SIGTERM} (137: it was killed). Once stopped, later calls return the same status.
     */
    public int stop() throws InterruptedException {
        if (process.isAlive()) {
            launch.stop(process);
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                launch.kill(process);
            }
        }
        return process.waitFor();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
