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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Dispatcher service in its own JVM, as users deploy it: {@code java -jar} on dispatcher-app's exec jar ({@link
 * Launch.Jar}), or its main class on the harness's class path ({@link Launch.ClassPath}, no jar needed), with the
 * same JDK as this harness and no JVM options but those asked for. Its output goes to a log file; starting waits
 * until {@code /actuator/health} answers {@code UP}. Closing stops it gracefully (SIGTERM), as a platform would, and
 * waits for it to exit.
 */
public final class ServiceProcess implements AutoCloseable {

    /** The service's main class, for {@link Launch.ClassPath}. */
    static final String MAIN_CLASS = "dev.dispatcher.app.DispatcherApplication";
    /** Logging to standard output for a JVM on the harness's class path (whose logback.xml logs to a file). */
    public static final String CHILD_LOGGING = "bench-service-logback.xml";

    private final Process process;
    private final ServiceClient client;
    private final Path log;

    private ServiceProcess(Process process, ServiceClient client, Path log) {
        this.process = process;
        this.client = client;
        this.log = log;
    }

    /** How the service's JVM is started. */
    public sealed interface Launch {

        /** The arguments after the JVM options: what to run. */
        List<String> target();

        /** {@code java -jar jar}. */
        record Jar(Path jar) implements Launch {
            @Override
            public List<String> target() {
                return List.of("-jar", jar.toString());
            }
        }

        /** {@code java -cp classPath DispatcherApplication}, logging to standard output. */
        record ClassPath(String classPath) implements Launch {
            @Override
            public List<String> target() {
                return List.of("-Dlogback.configurationFile=" + CHILD_LOGGING, "-cp", classPath, MAIN_CLASS,
                        "--logging.config=classpath:" + CHILD_LOGGING);
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
        List<String> command = new ArrayList<>();
        command.add(javaCommand());
        command.addAll(jvmOptions);
        command.addAll(launch.target());
        command.add("--server.port=" + port);
        command.addAll(access.arguments());
        command.addAll(arguments);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServiceProcess service = new ServiceProcess(process, new ServiceClient("http://localhost:" + port, access),
                log);
        service.awaitHealthy(Duration.ofMinutes(3));
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

    private void awaitHealthy(Duration timeout) throws InterruptedException {
        Progress progress = Progress.of("service");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            progress.maybePrint(() -> "starting in its own JVM, logging to " + log.getFileName());
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log);
            }
            if (client.healthy()) {
                System.out.printf(Locale.ROOT, "service: healthy in %.1f s (pid %d)%n", progress.seconds(),
                        process.pid());
                return;
            }
            Thread.sleep(250); // the harness's main thread: waiting is its job
        }
        process.destroyForcibly();
        throw new IllegalStateException("the service did not become healthy within " + timeout + "; see " + log);
    }

    /** The service over HTTP. */
    public ServiceClient client() {
        return client;
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
        process.destroy();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
