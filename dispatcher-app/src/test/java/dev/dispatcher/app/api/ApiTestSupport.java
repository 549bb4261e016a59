package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.dispatcher.app.DispatcherApplication;
import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.testkit.TestServers;
import io.r2dbc.pool.ConnectionPool;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The one application context every API test class shares (same properties, so Spring's context cache starts it
 * once per JVM): the service on a fresh schema of the shared PostgreSQL and Kafka, with test users, API tokens
 * and a locally generated RSA key for JWTs. Verification goes through plain JDBC connections.
 */
@SpringBootTest(classes = DispatcherApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class ApiTestSupport {

    static final String SCHEMA = "api_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    static final String PRODUCER_TOKEN = "producer-token-" + UUID.randomUUID();
    static final String OPERATOR_TOKEN = "operator-token-" + UUID.randomUUID();
    static final String VIEWER_TOKEN = "viewer-token-" + UUID.randomUUID();
    /** A PRODUCER token that may write topics matching {@value #ORDERS_PATTERN} only. */
    static final String ORDERS_TOKEN = "orders-token-" + UUID.randomUUID();
    static final String ORDERS_PATTERN = "orders.*";
    /** A user whose password is a real bcrypt hash (cost {@value #DEMO_BCRYPT_COST}), as in production. */
    static final String DEMO_USER = "demo";
    static final int DEMO_BCRYPT_COST = 8;
    static final long MAX_PAYLOAD = 16 * 1024;
    static final int MAX_BATCH = 5;
    static final long MAX_BACKLOG = 300;
    static final Duration LOCK_TIMEOUT = Duration.ofSeconds(3);
    static final KeyPair JWT_KEYS = rsaKeys();
    static final Path JWT_PUBLIC_KEY = publicKeyFile();

    @LocalServerPort
    int port;

    WebTestClient http;

    @DynamicPropertySource
    static void apiProperties(DynamicPropertyRegistry registry) {
        DispatcherTestProperties.register(registry, () -> SCHEMA);
        registry.add("dispatcher.worker-id", () -> "api-it");
        registry.add("dispatcher.ingest.max-payload-size", () -> MAX_PAYLOAD + "B");
        registry.add("dispatcher.ingest.max-batch-size", () -> MAX_BATCH);
        registry.add("dispatcher.ingest.max-backlog", () -> MAX_BACKLOG);
        // short enough for IngestFaultsIT to see a lock wait run out, long enough for every deliberate race
        registry.add("spring.r2dbc.properties.lockWaitTimeout", () -> LOCK_TIMEOUT.toMillis() + "ms");
        user(registry, 0, "producer", "PRODUCER");
        user(registry, 1, "operator", "OPERATOR");
        user(registry, 2, "operator2", "OPERATOR");
        user(registry, 3, "viewer", "VIEWER");
        registry.add("dispatcher.security.users[4].name", () -> DEMO_USER);
        registry.add("dispatcher.security.users[4].password",
                () -> "{bcrypt}" + new BCryptPasswordEncoder(DEMO_BCRYPT_COST).encode(DEMO_USER + "-pw"));
        registry.add("dispatcher.security.users[4].roles", () -> "VIEWER");
        token(registry, 0, "loader", PRODUCER_TOKEN, "PRODUCER");
        token(registry, 1, "ops-bot", OPERATOR_TOKEN, "OPERATOR");
        token(registry, 2, "dashboard", VIEWER_TOKEN, "VIEWER");
        token(registry, 3, "orders-service", ORDERS_TOKEN, "PRODUCER");
        registry.add("dispatcher.security.tokens[3].topics[0]", () -> ORDERS_PATTERN);
        // every test here signs in from 127.0.0.1, and FailedLoginTimingIT fails hundreds of logins on purpose; the
        // throttle itself is FailedLoginThrottleIT's, in a service of its own
        registry.add("dispatcher.security.auth-failures.limit", () -> 1_000_000);
        registry.add("spring.security.oauth2.resourceserver.jwt.public-key-location",
                () -> JWT_PUBLIC_KEY.toUri().toString());
    }

    private static void user(DynamicPropertyRegistry registry, int i, String name, String role) {
        registry.add("dispatcher.security.users[" + i + "].name", () -> name);
        registry.add("dispatcher.security.users[" + i + "].password", () -> "{noop}" + name + "-pw");
        registry.add("dispatcher.security.users[" + i + "].roles", () -> role);
    }

    private static void token(DynamicPropertyRegistry registry, int i, String name, String token, String role) {
        registry.add("dispatcher.security.tokens[" + i + "].name", () -> name);
        registry.add("dispatcher.security.tokens[" + i + "].sha256",
                () -> HexFormat.of().formatHex(ApiTokenAuthenticationManager.sha256(token)));
        registry.add("dispatcher.security.tokens[" + i + "].roles", () -> role);
    }

    @BeforeEach
    void client() {
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port)
                .responseTimeout(Duration.ofSeconds(30)).build();
    }

    WebTestClient as(String user) {
        return http.mutate().defaultHeaders(h -> h.setBasicAuth(user, user + "-pw")).build();
    }

    WebTestClient producer() {
        return as("producer");
    }

    WebTestClient operator() {
        return as("operator");
    }

    WebTestClient viewer() {
        return as("viewer");
    }

    WebTestClient bearer(String token) {
        return http.mutate().defaultHeaders(h -> h.setBearerAuth(token)).build();
    }

    static String jwt(String subject, String scope) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), new JWTClaimsSet.Builder()
                    .subject(subject).claim("scope", scope)
                    .issueTime(Date.from(Instant.now()))
                    .expirationTime(Date.from(Instant.now().plusSeconds(300))).build());
            jwt.sign(new RSASSASigner((RSAPrivateKey) JWT_KEYS.getPrivate()));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair rsaKeys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path publicKeyFile() {
        try {
            Path file = Files.createTempFile("dispatcher-jwt", ".pub");
            file.toFile().deleteOnExit();
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(JWT_KEYS.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            Files.writeString(file, pem);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- verification through a separate connection

    static Connection jdbc() throws SQLException {
        return TestServers.postgres().openConnection(SCHEMA);
    }

    static long count(String sql, Object... parameters) {
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                q.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = q.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void execute(String sql, Object... parameters) {
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                q.setObject(i + 1, parameters[i]);
            }
            q.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static long outboxRows() {
        return count("SELECT count(*) FROM outbox_message");
    }

    /**
     * Seeds a row in {@code status}; live rows are made visible only in an hour, so the running relay leaves them
     * alone. Returns its id.
     */
    static UUID seed(String status, String topic, String key, String lastError) {
        UUID id = UUID.randomUUID();
        execute("INSERT INTO outbox_message (id, topic, message_key, event_type, payload, status, attempts,"
                + " visible_after, last_error, dead_lettered_at, delivered_at) VALUES (?, ?, ?, 'Seeded',"
                + " '{\"seeded\":true}'::bytea, ?, 3, now() + interval '1 hour', ?,"
                + " CASE WHEN ? = 'DEAD_LETTERED' THEN now() END, CASE WHEN ? = 'DELIVERED' THEN now() END)",
                id, topic, key, status, lastError, status, status);
        return id;
    }

    /** A whole HTTP/1.1 ingest request of {@code body} as the producer sends it, for a raw socket. */
    byte[] rawIngestRequest(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: " + producerAuthorization()
                + "\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = Arrays.copyOf(head, head.length + bytes.length);
        System.arraycopy(bytes, 0, request, head.length, bytes.length);
        return request;
    }

    /**
     * Sends a whole ingest request as the producer on a raw socket and closes it after {@code afterMillis},
     * never reading the answer: a client that goes away mid-request.
     */
    void sendAndHangUp(String body, int afterMillis) throws IOException, InterruptedException {
        try (Socket socket = new Socket("localhost", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(rawIngestRequest(body));
            out.flush();
            if (afterMillis > 0) {
                Thread.sleep(afterMillis);
            }
        }
    }

    /**
     * Runs as many queries at once as {@code pool} may hold connections, each for 200 ms, so every connection it
     * has (and every one it opens for this) must answer within a few seconds: one stuck on a busy event loop or
     * behind an abandoned conversation would not.
     */
    static void assertEveryPooledConnectionAnswers(ConnectionPool pool) {
        int size = pool.getMetrics().orElseThrow().getMaxAllocatedSize();
        List<Integer> answers = Flux.range(0, size)
                .flatMap(i -> Mono.usingWhen(pool.create(),
                        c -> Mono.from(c.createStatement("SELECT pg_sleep(0.2), 1").execute())
                                .flatMap(r -> Mono.from(r.map(row -> row.get(1, Integer.class)))),
                        c -> c.close()), size)
                .collectList()
                .block(Duration.ofSeconds(10));
        assertThat(answers).hasSize(size).containsOnly(1);
    }

    static String uniqueTopic(String prefix) {
        String topic = prefix + "." + UUID.randomUUID().toString().substring(0, 8);
        TestServers.kafka().createTopic(topic, 1); // the broker creates none on first use, as in production
        return topic;
    }

    /** The server process id of a JDBC connection, to find the statements it blocks in {@code pg_locks}. */
    static int backendPid(Connection c) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT pg_backend_pid()"); ResultSet row = q.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }

    /**
     * The {@code Authorization} of {@link #post}, {@link #sendAndHangUp} and {@link #producing}: the Basic producer,
     * whose requests go the framework's way; subclasses that test the fast path ({@link IngestFastPath}) give the
     * producer's API token instead.
     */
    String producerAuthorization() {
        return "Basic " + Base64.getEncoder().encodeToString("producer:producer-pw".getBytes(StandardCharsets.UTF_8));
    }

    /** A client sending {@link #producerAuthorization}. */
    WebTestClient producing() {
        return http.mutate().defaultHeader(HttpHeaders.AUTHORIZATION, producerAuthorization()).build();
    }

    /** Posts one ingest body as the producer, without waiting; completes with the answer's status code. */
    CompletableFuture<Integer> post(String body) {
        return WebClient.builder()
                .baseUrl("http://localhost:" + port).build()
                .post().uri("/v1/messages")
                .header(HttpHeaders.AUTHORIZATION, producerAuthorization())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                .toFuture();
    }
}
