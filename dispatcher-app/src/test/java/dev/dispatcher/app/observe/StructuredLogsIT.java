package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.DispatcherApplication;
import dev.dispatcher.app.DispatcherTestProperties;
import dev.dispatcher.domain.MessageHeaders;
import dev.dispatcher.testkit.JvmProcess;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service started as an operator starts it, in a JVM of its own with Boot's default logging, and the documented
 * switch to JSON lines ({@code --logging.structured.format.console=ecs}): every line it writes to standard output is
 * one JSON object; a healthy start logs nothing at WARN or above (springdoc's "enabled by default" warning
 * included); and the relay's and the inbox's events about one message carry it as fields: {@code message_id},
 * {@code topic}, {@code source}, {@code consumer} (inbox) and {@code trace_id} from the message's {@code
 * traceparent}. The events are made to happen: a row too large for its topic is dead-lettered by the relay at once,
 * and a record whose webhook refuses connections is dead-lettered by the inbox after its one attempt.
 */
class StructuredLogsIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CONSUMER = "billing";
    private static final String STARTED = "Started " + DispatcherApplication.class.getSimpleName();

    private static final String SCHEMA = PostgresServer.uniqueSchemaName("structured_logs");
    private static final String SMALL_TOPIC = "logs.small." + UUID.randomUUID();
    private static final String INBOX_TOPIC = "logs.inbox." + UUID.randomUUID();

    private static JvmProcess service;

    @BeforeAll
    static void startTheServiceWithJsonLogs() {
        KafkaServer kafka = TestServers.kafka();
        // the broker refuses its records over 1 KiB: the relay dead-letters such a row at once (record too large)
        kafka.createTopic(SMALL_TOPIC, 1, Map.of("max.message.bytes", "1024"));
        kafka.createTopic(INBOX_TOPIC, 1);
        List<String> arguments = new ArrayList<>(List.of(DispatcherTestProperties.asArguments(SCHEMA)));
        arguments.addAll(List.of(
                "--logging.structured.format.console=ecs",
                "--server.port=" + JvmProcess.freePort(),
                "--dispatcher.worker-id=structured-logs",
                "--dispatcher.inbox.consumers[0].name=" + CONSUMER,
                "--dispatcher.inbox.consumers[0].topics=" + INBOX_TOPIC,
                // nothing listens there: the handler fails, and its one attempt dead-letters the message
                "--dispatcher.inbox.consumers[0].webhook.url=http://127.0.0.1:" + JvmProcess.freePort() + "/hook",
                "--dispatcher.inbox.consumers[0].retry.max-attempts=1"));
        service = JvmProcess.start(List.of("--enable-native-access=ALL-UNNAMED"),
                JvmProcess.mainClass(System.getProperty("java.class.path"), DispatcherApplication.class.getName()),
                arguments, Path.of("target", "structured-logs", "service"));
        await("the service's start (" + service.outputFile() + ")").atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !service.isAlive() || messages().anyMatch(m -> m.startsWith(STARTED)));
        assertThat(service.isAlive()).as("the service runs; %s", service.tail(40)).isTrue();
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.stop();
        }
    }

    @Test
    void everyLineIsAJsonObjectAndAHealthyStartWarnsOfNothing() {
        List<JsonNode> start = new ArrayList<>();
        for (JsonNode line : lines()) {
            start.add(line);
            if (line.path("message").asString().startsWith(STARTED)) {
                break;
            }
        }
        assertThat(start).as("the start's lines").hasSizeGreaterThan(10);
        assertThat(start).allSatisfy(line -> assertThat(line.at("/log/level").asString())
                .as("%s", line).isIn("INFO", "DEBUG", "TRACE"));
        assertThat(start).noneMatch(line -> line.at("/log/logger").asString().startsWith("org.springdoc"));
    }

    @Test
    void theRelaysDeadLetterCarriesItsMessageTopicSourceAndTrace() throws Exception {
        UUID id = insertOutboxRow(SMALL_TOPIC, new byte[4096]);

        JsonNode event = awaitEvent("the relay's dead letter of " + id, id.toString());

        assertThat(event.at("/log/level").asString()).isEqualTo("WARN");
        assertThat(event.path("message").asString()).contains("message dead-lettered", "queue=outbox");
        assertThat(event.path("message_id").asString()).isEqualTo(id.toString());
        assertThat(event.path("topic").asString()).isEqualTo(SMALL_TOPIC);
        assertThat(event.path("source").asString()).isEqualTo(DispatcherMetrics.DEFAULT_SOURCE);
        assertThat(event.path("trace_id").asString()).isEqualTo(TRACE_ID);
        assertThat(event.has("consumer")).isFalse();
    }

    @Test
    void theInboxsDeadLetterCarriesItsConsumerToo() throws Exception {
        String id = "payment-" + UUID.randomUUID();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers", TestServers.kafka().bootstrapServers(),
                "key.serializer", "org.apache.kafka.common.serialization.StringSerializer",
                "value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer"))) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(INBOX_TOPIC, "k",
                    "{}".getBytes(StandardCharsets.UTF_8));
            record.headers().add(MessageHeaders.MESSAGE_ID, id.getBytes(StandardCharsets.UTF_8));
            record.headers().add(MessageTracing.TRACEPARENT, TRACEPARENT.getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(30, TimeUnit.SECONDS);
        }

        JsonNode event = awaitEvent("the inbox's dead letter of " + id, id);

        assertThat(event.at("/log/level").asString()).isEqualTo("WARN");
        assertThat(event.path("message").asString()).contains("message dead-lettered", "queue=inbox");
        assertThat(event.path("consumer").asString()).isEqualTo(CONSUMER);
        assertThat(event.path("topic").asString()).isEqualTo(INBOX_TOPIC);
        assertThat(event.path("source").asString()).isEqualTo(DispatcherMetrics.DEFAULT_SOURCE);
        assertThat(event.path("trace_id").asString()).isEqualTo(TRACE_ID);
    }

    /** The dead-letter event of message {@code id}, once it is logged. */
    private static JsonNode awaitEvent(String what, String id) {
        return await(what).atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines().stream()
                        .filter(line -> id.equals(line.path("message_id").asString())
                                && line.path("message").asString().startsWith("message dead-lettered"))
                        .findFirst().orElse(null), event -> event != null);
    }

    private static UUID insertOutboxRow(String topic, byte[] payload) throws Exception {
        try (Connection c = TestServers.postgres().openConnection(SCHEMA); PreparedStatement insert =
                c.prepareStatement("INSERT INTO outbox_message (topic, event_type, payload, headers)"
                        + " VALUES (?, 'Oversized', ?, jsonb_build_object('traceparent', ?::text)) RETURNING id")) {
            insert.setString(1, topic);
            insert.setBytes(2, payload);
            insert.setString(3, TRACEPARENT);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getObject(1, UUID.class);
            }
        }
    }

    /** Every line of the service's standard output so far, each parsed as one JSON object (else the test fails). */
    private static List<JsonNode> lines() {
        List<JsonNode> parsed = new ArrayList<>();
        for (String line : service.output()) {
            try {
                JsonNode node = JSON.readTree(line);
                assertThat(node.isObject()).as("a JSON object: %s", line).isTrue();
                parsed.add(node);
            } catch (JacksonException e) {
                throw new AssertionError("not a JSON line: " + line, e);
            }
        }
        return parsed;
    }

    private static Stream<String> messages() {
        return lines().stream().map(line -> line.path("message").asString());
    }
}
