package dev.dispatcher.load;

import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The Dispatcher service in its own JVM, as users deploy it: {@code java -jar} on dispatcher-app's exec jar, with
 * the same JDK as this harness and no JVM options but those asked for. Its output goes to a log file; starting
 * waits until {@code /actuator/health} answers {@code UP}. Closing stops it gracefully (SIGTERM), as a platform
 * would, and waits for it to exit.
 */
public final class ServiceProcess implements AutoCloseable {

    /** Where the service listens, {@code http://localhost:<port>}. */
    public final String baseUrl;
    private final Process process;

    private ServiceProcess(String baseUrl, Process process) {
        this.baseUrl = baseUrl;
        this.process = process;
    }

    /**
     * Starts the service from {@code jar} with {@code arguments} (Spring properties as {@code --name=value}) and
     * {@code jvmOptions}, logging to {@code log}.
     */
    public static ServiceProcess start(Path jar, List<String> jvmOptions, List<String> arguments, Path log)
            throws IOException, InterruptedException {
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        command.add("--server.port=" + port);
        command.addAll(arguments);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        ServiceProcess service = new ServiceProcess("http://localhost:" + port, process);
        service.awaitHealthy(Duration.ofMinutes(3), log);
        return service;
    }

    /**
     * The arguments that point a service at {@code postgres} and {@code kafka} with its tables in {@code schema}
     * (created by the service's Flyway when missing).
     */
    public static List<String> serverArguments(PostgresServer postgres, KafkaServer kafka, String schema) {
        return List.of(
                "--spring.r2dbc.url=" + postgres.r2dbcUrl(),
                "--spring.r2dbc.username=" + postgres.username(),
                "--spring.r2dbc.password=" + postgres.password(),
                "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "--dispatcher.schema=" + schema);
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

    private void awaitHealthy(Duration timeout, Path log) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<String> health = client.send(HttpRequest.newBuilder(
                                URI.create(baseUrl + "/actuator/health")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200 && health.body().contains("\"UP\"")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        process.destroyForcibly();
        throw new IllegalStateException("the service did not become healthy within " + timeout + "; see " + log);
    }

    /**
     * The service's Prometheus exposition (the harness starts it with {@code
     * dispatcher.security.public-prometheus=true}); an answer other than {@code 200} is an error.
     */
    public String prometheus() throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/actuator/prometheus"))
                .timeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = METRICS.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET /actuator/prometheus answered " + response.statusCode());
        }
        return response.body();
    }

    private static final HttpClient METRICS = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Whether the service's process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Lines of the service's log (its standard output and error) that contain {@code text}. */
    public static long logLinesContaining(Path log, String text) throws IOException {
        try (Stream<String> lines = Files.lines(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
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

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
