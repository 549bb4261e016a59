package dev.dispatcher.app;

import dev.dispatcher.testkit.TestServers;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The one running service the console, metric-name and trace tests share (same configuration, so Spring starts
 * it once per JVM): a fresh schema on the shared PostgreSQL and Kafka, an inbox consumer whose webhook is a
 * {@link WebhookSink} (and a second one with per-key order and a dead-letter topic), an {@link InMemorySpanExporter} behind Boot's span processor (exported every 100 ms), a
 * topic whose records may be at most {@value #SMALL_TOPIC_MAX_BYTES} bytes (so the relay dead-letters a larger
 * one, until the topic is fixed with {@link #allowLargeRecords()}), and operator, producer and viewer users.
 */
@SpringBootTest(classes = DispatcherApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(OpsTestSupport.InMemorySpans.class)
public abstract class OpsTestSupport {

    private static final String SUFFIX = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    public static final String SCHEMA = "ops_" + SUFFIX;
    /** Consumed by the inbox consumer {@link #CONSUMER}. */
    public static final String TRACED_TOPIC = "ops.traced." + SUFFIX;
    /** Records over {@link #SMALL_TOPIC_MAX_BYTES} are refused by the broker until {@link #allowLargeRecords()}. */
    public static final String SMALL_TOPIC = "ops.small." + SUFFIX;
    public static final int SMALL_TOPIC_MAX_BYTES = 2048;
    /** Nobody consumes it. */
    public static final String PLAIN_TOPIC = "ops.plain." + SUFFIX;
    public static final String CONSUMER = "ops-webhook";
    /** A second consumer, with per-key order and a dead-letter topic, of {@link #KEYED_TOPIC}. */
    public static final String KEYED_CONSUMER = "ops-keyed";
    /** Consumed by {@link #KEYED_CONSUMER}; its dead-letter topic is this name with {@code .DLT}. */
    public static final String KEYED_TOPIC = "ops.keyed." + SUFFIX;
    public static final String OPERATOR = "operator";
    public static final String OTHER_OPERATOR = "operator2";
    public static final String PRODUCER = "producer";
    public static final String VIEWER = "viewer";
    public static final WebhookSink WEBHOOK = WebhookSink.start();

    @LocalServerPort
    protected int port;

    @Autowired
    protected InMemorySpanExporter spans;

    protected WebTestClient http;

    @DynamicPropertySource
    static void opsProperties(DynamicPropertyRegistry registry) {
        TestServers.kafka().createTopic(TRACED_TOPIC, 1);
        TestServers.kafka().createTopic(PLAIN_TOPIC, 1);
        TestServers.kafka().createTopic(SMALL_TOPIC, 1);
        TestServers.kafka().createTopic(KEYED_TOPIC, 1);
        TestServers.kafka().createTopic(KEYED_TOPIC + ".DLT", 1);
        setMaxMessageBytes(SMALL_TOPIC, SMALL_TOPIC_MAX_BYTES);
        DispatcherTestProperties.register(registry, () -> SCHEMA);
        registry.add("dispatcher.worker-id", () -> "ops-it");
        registry.add("dispatcher.relay.poll-interval", () -> "200ms");
        registry.add("dispatcher.retry.initial-delay", () -> "200ms");
        registry.add("dispatcher.retry.max-attempts", () -> 3);
        user(registry, 0, OPERATOR, "OPERATOR");
        user(registry, 1, OTHER_OPERATOR, "OPERATOR");
        user(registry, 2, PRODUCER, "PRODUCER");
        user(registry, 3, VIEWER, "VIEWER");
        registry.add("dispatcher.inbox.consumers[0].name", () -> CONSUMER);
        registry.add("dispatcher.inbox.consumers[0].topics[0]", () -> TRACED_TOPIC);
        registry.add("dispatcher.inbox.consumers[0].handler", () -> "webhook");
        registry.add("dispatcher.inbox.consumers[0].webhook.url", () -> WEBHOOK.url().toString());
        registry.add("dispatcher.inbox.consumers[0].webhook.timeout", () -> "5s");
        registry.add("dispatcher.inbox.consumers[1].name", () -> KEYED_CONSUMER);
        registry.add("dispatcher.inbox.consumers[1].topics[0]", () -> KEYED_TOPIC);
        registry.add("dispatcher.inbox.consumers[1].webhook.url", () -> WEBHOOK.url().toString());
        registry.add("dispatcher.inbox.consumers[1].ordering", () -> "per-key");
        registry.add("dispatcher.inbox.consumers[1].dead-letter-topic", () -> "{topic}.DLT");
        registry.add("management.opentelemetry.tracing.export.schedule-delay", () -> "100ms");
    }

    private static void user(DynamicPropertyRegistry registry, int i, String name, String role) {
        registry.add("dispatcher.security.users[" + i + "].name", () -> name);
        registry.add("dispatcher.security.users[" + i + "].password", () -> "{noop}" + password(name));
        registry.add("dispatcher.security.users[" + i + "].roles", () -> role);
    }

    public static String password(String user) {
        return user + "-pw";
    }

    /** Collects the spans the service exports. */
    @TestConfiguration(proxyBeanMethods = false)
    static class InMemorySpans {
        @Bean
        InMemorySpanExporter inMemorySpanExporter() {
            return InMemorySpanExporter.create();
        }
    }

    @BeforeEach
    void client() {
        http = WebTestClient.bindToServer().baseUrl(baseUrl()).responseTimeout(Duration.ofSeconds(30)).build();
    }

    protected String baseUrl() {
        return "http://localhost:" + port;
    }

    protected WebTestClient as(String user) {
        return http.mutate().defaultHeaders(h -> h.setBasicAuth(user, password(user))).build();
    }

    /** The fix for {@link #SMALL_TOPIC}: records up to 1 MiB are accepted from now on. */
    protected static void allowLargeRecords() {
        setMaxMessageBytes(SMALL_TOPIC, 1024 * 1024 + 1024);
    }

    private static void setMaxMessageBytes(String topic, int bytes) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestServers.kafka().bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                    List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                            Integer.toString(bytes)), AlterConfigOp.OpType.SET))))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot set max.message.bytes of " + topic, e);
        }
    }

    /**
     * A dead letter of {@link #CONSUMER} as intake or a handler leaves one, from {@link #TRACED_TOPIC} partition 0;
     * {@code key} or {@code keyBytes} (a key that is not text), and a null {@code value} for one that was not stored.
     */
    protected static String seedInboxDeadLetter(String id, String key, byte[] keyBytes, String value, String error) {
        execute("INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,"
                + " message_key, message_key_bytes, event_type, payload, status, attempts, last_error,"
                + " dead_lettered_at) VALUES (?, ?, ?, 0, ?, ?, ?, 'Seeded', convert_to(?, 'UTF8'), 'DEAD_LETTERED', 1,"
                + " ?, now())", CONSUMER, id, TRACED_TOPIC, System.nanoTime(), key, keyBytes, value, error);
        return id;
    }

    // ---- verification through a separate connection

    protected static Connection jdbc() throws SQLException {
        return TestServers.postgres().openConnection(SCHEMA);
    }

    protected static long count(String sql, Object... parameters) {
        return query(sql, parameters, rows -> rows.getLong(1));
    }

    protected static String text(String sql, Object... parameters) {
        return query(sql, parameters, rows -> rows.getString(1));
    }

    protected static void execute(String sql, Object... parameters) {
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(sql)) {
            bind(q, parameters);
            q.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private interface Column<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private static <T> T query(String sql, Object[] parameters, Column<T> column) {
        try (Connection c = jdbc(); PreparedStatement q = c.prepareStatement(sql)) {
            bind(q, parameters);
            try (ResultSet rows = q.executeQuery()) {
                return rows.next() ? column.read(rows) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void bind(PreparedStatement q, Object[] parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            q.setObject(i + 1, parameters[i]);
        }
    }
}
