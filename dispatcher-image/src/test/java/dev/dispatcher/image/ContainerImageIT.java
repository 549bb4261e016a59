package dev.dispatcher.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.JvmProcess;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dispatcher's container image as the build makes it (src/main/container, docs/deployment.md), on a Java 25 base
 * made from Debian's mirror and the local JDK (local-base.sh: the build machines reach no registry), run with podman
 * on the host network against the test kit's PostgreSQL and Kafka, configured the way a platform configures it:
 * environment variables only, the database password from a mounted file ({@code spring.config.import=configtree:}).
 * Skips, saying why, where podman cannot run or no base can be made.
 */
class ContainerImageIT {

    private static final String BASE_TAG = "localhost/dispatcher-base:25";
    private static final String IMAGE_TAG = "localhost/dispatcher:it";
    private static final long MAX_IMAGE_BYTES = 250L * 1000 * 1000;
    private static final String EXEC_JAR_MARKER = "BOOT-INF/classes/dev/dispatcher/app/DispatcherApplication.class";

    private static final Path CONTAINER_DIR = Path.of(System.getProperty("dispatcher.image.container-dir",
            "src/main/container"));
    private static final Path CACHE_DIR = Path.of(System.getProperty("dispatcher.image.cache-dir",
            System.getProperty("user.home") + "/.cache/dispatcher-image"));

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static Duration buildTime;

    @BeforeAll
    static void buildImage() {
        Assumptions.assumeTrue(Podman.usable(), "container image tests skipped: podman is missing or cannot run"
                + " (`podman info` failed); install Debian's podman, runc and mmdebstrap (.ci/run does so, and"
                + " configures podman for runc without rlimits)");
        String javaHome = System.getProperty("java.home");
        Podman.Result base = Podman.run(Duration.ofMinutes(10), Map.of("JAVA_HOME", javaHome),
                CONTAINER_DIR.resolve("local-base.sh").toString(), BASE_TAG, CACHE_DIR.toString());
        Assumptions.assumeTrue(base.ok(), "container image tests skipped: no local base image could be made"
                + " (mmdebstrap from Debian's mirror and jlink from " + javaHome + "): " + base.tail());

        long started = System.nanoTime();
        Podman.Result build = Podman.run(Duration.ofMinutes(10), Map.of("JAVA_HOME", javaHome),
                CONTAINER_DIR.resolve("build-image.sh").toString(), execJar().toString(), IMAGE_TAG, BASE_TAG);
        buildTime = Duration.ofNanos(System.nanoTime() - started);
        assertThat(build.ok()).as("the image builds: %s", build.tail()).isTrue();
        System.out.printf("ContainerImageIT: image built in %.1f s (base cached)%n", buildTime.toMillis() / 1000.0);
    }

    @AfterAll
    static void removeImage() {
        if (Podman.usable()) {
            Podman.podman(Duration.ofMinutes(1), "rmi", "--force", IMAGE_TAG);
        }
    }

    @Test
    void isSmallRunsAsNonRootAndIsLabelled() {
        Podman.Result size = Podman.podman(Duration.ofMinutes(1), "image", "inspect", "--format", "{{.Size}}",
                IMAGE_TAG);
        assertThat(size.ok()).as(size.output()).isTrue();
        long bytes = Long.parseLong(size.output().strip());
        System.out.printf("ContainerImageIT: image size %.1f MB uncompressed%n", bytes / 1e6);
        assertThat(bytes).as("the image's uncompressed size").isLessThan(MAX_IMAGE_BYTES);

        Podman.Result config = Podman.podman(Duration.ofMinutes(1), "image", "inspect", "--format",
                "{{.Config.User}}|{{index .Config.Labels \"org.opencontainers.image.title\"}}"
                        + "|{{index .Config.Labels \"org.opencontainers.image.version\"}}"
                        + "|{{index .Config.Labels \"org.opencontainers.image.base.name\"}}",
                IMAGE_TAG);
        assertThat(config.output().strip().split("\\|"))
                .containsExactly("10001:0", "Dispatcher", "0.1.0-SNAPSHOT", BASE_TAG);
    }

    @Test
    void startsHealthyDeliversAMessageAndDrainsOnSigterm() throws Exception {
        PostgresServer postgres = TestServers.postgres();
        KafkaServer kafka = TestServers.kafka();
        String schema = PostgresServer.uniqueSchemaName("image");
        String topic = "image-it-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(topic, 1);
        int port = freePort();
        String token = UUID.randomUUID().toString();

        // the database password as a platform mounts a secret: a file named after the property
        Path secrets = Files.createTempDirectory("dispatcher-secrets",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path passwordFile = secrets.resolve("spring.r2dbc.password");
        Files.writeString(passwordFile, postgres.password());
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-r--r--"));

        String name = "dispatcher-it-" + UUID.randomUUID().toString().substring(0, 8);
        // read-only as ops/kubernetes runs it: podman mounts a tmpfs at /tmp, as the Deployment an emptyDir
        List<String> run = new ArrayList<>(List.of("run", "--detach", "--name", name, "--network=host",
                "--read-only", "--volume", secrets + ":/run/secrets/dispatcher:ro"));
        Map<String, String> environment = Map.ofEntries(
                Map.entry("SERVER_PORT", Integer.toString(port)),
                Map.entry("SPRING_R2DBC_URL", postgres.r2dbcUrl()),
                Map.entry("SPRING_R2DBC_USERNAME", postgres.username()),
                Map.entry("SPRING_CONFIG_IMPORT", "configtree:/run/secrets/dispatcher/"),
                Map.entry("SPRING_KAFKA_BOOTSTRAPSERVERS", kafka.bootstrapServers()),
                Map.entry("DISPATCHER_SCHEMA", schema),
                Map.entry("DISPATCHER_SECURITY_TOKENS_0_NAME", "image-it"),
                Map.entry("DISPATCHER_SECURITY_TOKENS_0_ROLES", "PRODUCER"),
                Map.entry("DISPATCHER_SECURITY_TOKENS_0_SHA256", sha256(token)),
                Map.entry("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError"));
        environment.forEach((key, value) -> run.addAll(List.of("--env", key + "=" + value)));
        run.addAll(List.of("--memory", "768m", IMAGE_TAG));

        long started = System.nanoTime();
        Podman.Result container = Podman.podman(Duration.ofMinutes(1), run.toArray(String[]::new));
        assertThat(container.ok()).as("podman run: %s", container.output()).isTrue();
        try {
            URI health = URI.create("http://localhost:" + port + "/actuator/health");
            try {
                await("the container's /actuator/health to answer UP").atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            assertThat(running(name)).as("the container runs: %s", logs(name)).isTrue();
                            return healthy(health);
                        });
            } catch (ConditionTimeoutException e) {
                throw new AssertionError(e.getMessage() + "; the container's log: " + logs(name), e);
            }
            Duration startTime = Duration.ofNanos(System.nanoTime() - started);
            System.out.printf("ContainerImageIT: healthy %.1f s after podman run; the service: %s%n",
                    startTime.toMillis() / 1000.0, logs(name).lines().filter(line -> line.contains("Started "))
                            .findFirst().orElse("(no start line)"));

            UUID id = UUID.randomUUID();
            HttpResponse<String> accepted = HTTP.send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + port + "/v1/messages"))
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"" + id + "\",\"topic\":\"" + topic
                            + "\",\"key\":\"k\",\"type\":\"ImageChecked\",\"payload\":{\"n\":1}}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);

            List<ConsumerRecord<String, byte[]>> records = kafka.consume(topic, 1, Duration.ofSeconds(30));
            assertThat(records).as("the message read back from Kafka").hasSize(1);
            assertThat(new String(records.getFirst().value(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");

            // SIGTERM, then SIGKILL only after 60 s: an exit by SIGKILL would read 137
            Podman.Result stop = Podman.podman(Duration.ofMinutes(2), "stop", "--time", "60", name);
            assertThat(stop.ok()).as(stop.output()).isTrue();
            Podman.Result exit = Podman.podman(Duration.ofMinutes(1), "inspect", "--format", "{{.State.ExitCode}}",
                    name);
            assertThat(exit.output().strip()).as("the JVM's exit on SIGTERM (143), not a kill: %s", logs(name))
                    .isEqualTo("143");
            assertThat(logs(name)).as("the container's log").doesNotContain(" ERROR ");

            try (Connection c = postgres.openConnection(schema); Statement s = c.createStatement()) {
                assertThat(count(s, "SELECT count(*) FROM outbox_message WHERE status = 'DELIVERED' AND id = '"
                        + id + "'")).as("the message delivered").isEqualTo(1);
                assertThat(count(s, "SELECT count(*) FROM outbox_message WHERE status IN ('PENDING',"
                        + " 'RETRY_SCHEDULED') AND lease_until > now()")).as("rows left leased").isZero();
            }
        } finally {
            Podman.podman(Duration.ofMinutes(2), "rm", "--force", name);
        }
    }

    /**
     * The reference for the image's start time: the same exec jar, started with {@code java -jar} on this JVM's JDK
     * against the same servers, measured the same way in the same run.
     */
    @Test
    void theJarItselfStartsForComparison() throws Exception {
        PostgresServer postgres = TestServers.postgres();
        KafkaServer kafka = TestServers.kafka();
        int port = freePort();
        List<String> arguments = List.of("--server.port=" + port, "--spring.r2dbc.url=" + postgres.r2dbcUrl(),
                "--spring.r2dbc.username=" + postgres.username(), "--spring.r2dbc.password=" + postgres.password(),
                "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                "--dispatcher.schema=" + PostgresServer.uniqueSchemaName("jar"));
        long started = System.nanoTime();
        JvmProcess jar = JvmProcess.start(List.of("-XX:MaxRAMPercentage=75.0"), JvmProcess.jar(execJar()), arguments,
                Path.of("target/jar-start"));
        try {
            URI health = URI.create("http://localhost:" + port + "/actuator/health");
            await("the jar's /actuator/health to answer UP").atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        assertThat(jar.isAlive()).as("the jar runs: %s", jar.tail(30)).isTrue();
                        return healthy(health);
                    });
            System.out.printf("ContainerImageIT: the jar healthy %.1f s after java -jar (reference)%n",
                    (System.nanoTime() - started) / 1e9);
        } finally {
            assertThat(jar.stop()).as("the jar's exit on SIGTERM").isEqualTo(143);
        }
    }

    private static boolean running(String name) {
        Podman.Result state = Podman.podman(Duration.ofMinutes(1), "inspect", "--format", "{{.State.Running}}",
                name);
        return state.ok() && state.output().strip().equals("true");
    }

    private static String logs(String name) {
        return Podman.podman(Duration.ofMinutes(1), "logs", name).output();
    }

    private static boolean healthy(URI health) throws InterruptedException {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            // 200 only when the overall status is UP (503 otherwise)
            return response.statusCode() == 200 && response.body().contains("\"status\":\"UP\"");
        } catch (IOException e) {
            return false; // not listening yet
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rows = s.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String sha256(String token) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    /** dispatcher-app's exec jar, a test dependency of this module. */
    private static Path execJar() {
        URL marker = ContainerImageIT.class.getClassLoader().getResource(EXEC_JAR_MARKER);
        assertThat(marker).as("dispatcher-app's exec jar on the test class path").isNotNull();
        String url = marker.toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot read the exec jar's location from " + url, e);
        }
    }
}
