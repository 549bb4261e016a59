package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.store.Ordering;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The relay in each CloudEvents format, read back by the CloudEvents Java SDK's Kafka deserializer ({@code
 * cloudevents-kafka}) as a consumer: every attribute equal to what the row holds (id, source, type, time, subject,
 * datacontenttype, the data's bytes and the extensions), for a keyed JSON row with correlation, causation and trace
 * context and for an unkeyed row whose payload is not JSON. The rows' creation times are read through a fresh
 * connection.
 */
class RelayCloudEventsIT {

    private static final URI SOURCE = URI.create("https://shop.example/orders");
    private static final byte[] BINARY = {0, 1, 2, (byte) 0xff, 'x'};

    @ParameterizedTest
    @ValueSource(strings = {"binary", "structured"})
    void theSdksKafkaDeserializerReadsBackEveryAttributeTheRowHolds(String mode) throws Exception {
        try (RelayFixture fx = new RelayFixture("ce_" + mode)) {
            String topic = "ce-" + fx.schema;
            fx.kafka.createTopic(topic, 1);
            UUID json = fx.seed(topic, 1, i -> "order-1").getFirst(); // {"n":0}, corr-0, cause-0, traceparent, tenant
            UUID bytes = insert(fx, topic, BINARY, "application/octet-stream");
            RecordFormat format = mode.equals("binary") ? RecordFormat.cloudEventsBinary(SOURCE)
                    : RecordFormat.cloudEventsStructured(SOURCE);
            fx.relay(RelayFixture.settings("ce-relay-" + mode, Ordering.PER_KEY).withFormat(format),
                    fx.publisher(), RelayFixture.metrics());
            fx.awaitCount("status = 'DELIVERED'", 2, Duration.ofSeconds(30));

            Map<String, ConsumerRecord<String, CloudEvent>> events = consumeEvents(fx, topic, 2);

            assertThat(events).containsOnlyKeys(json.toString(), bytes.toString());
            ConsumerRecord<String, CloudEvent> keyed = events.get(json.toString());
            CloudEvent e = keyed.value();
            assertThat(keyed.key()).isEqualTo("order-1");
            assertThat(e.getSpecVersion()).isEqualTo(SpecVersion.V1);
            assertThat(e.getId()).isEqualTo(json.toString());
            assertThat(e.getSource()).isEqualTo(SOURCE);
            assertThat(e.getType()).isEqualTo("TestEvent");
            assertThat(e.getTime().toInstant()).isEqualTo(createdAt(fx, json));
            assertThat(e.getSubject()).isEqualTo("order-1");
            assertThat(e.getDataContentType()).isEqualTo("application/json");
            assertThat(new String(e.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":0}");
            assertThat(e.getExtensionNames()).containsExactlyInAnyOrder("correlationid", "causationid",
                    "traceparent");
            assertThat(e.getExtension("correlationid")).isEqualTo("corr-0");
            assertThat(e.getExtension("causationid")).isEqualTo("cause-0");
            assertThat(e.getExtension("traceparent"))
                    .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            assertThat(messageId(keyed)).isEqualTo(json.toString());

            ConsumerRecord<String, CloudEvent> unkeyed = events.get(bytes.toString());
            CloudEvent b = unkeyed.value();
            assertThat(unkeyed.key()).isNull();
            assertThat(b.getId()).isEqualTo(bytes.toString());
            assertThat(b.getSource()).isEqualTo(SOURCE);
            assertThat(b.getType()).isEqualTo("TestEvent");
            assertThat(b.getTime().toInstant()).isEqualTo(createdAt(fx, bytes));
            assertThat(b.getSubject()).isNull();
            assertThat(b.getDataContentType()).isEqualTo("application/octet-stream");
            assertThat(b.getData().toBytes()).isEqualTo(BINARY);
            assertThat(b.getExtensionNames()).isEmpty();
            assertThat(messageId(unkeyed)).isEqualTo(bytes.toString());
        }
    }

    /** Reads {@code n} records of {@code topic} from the start with the SDK's deserializer, by event id. */
    private static Map<String, ConsumerRecord<String, CloudEvent>> consumeEvents(RelayFixture fx, String topic, int n)
            throws InterruptedException {
        Map<String, ConsumerRecord<String, CloudEvent>> events = new HashMap<>();
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, fx.kafka.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class))) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(10))
                    .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await("%d CloudEvents read from %s".formatted(n, topic)).atMost(Duration.ofSeconds(30))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).pollInSameThread()
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(r -> events.put(r.value().getId(), r));
                        return events.size() >= n;
                    });
        }
        return events;
    }

    /** The record's {@code message-id} header, which every format keeps. */
    private static String messageId(ConsumerRecord<String, CloudEvent> r) {
        return new String(r.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8);
    }

    private static UUID insert(RelayFixture fx, String topic, byte[] payload, String contentType) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement("INSERT INTO outbox_message"
                + " (id, topic, event_type, payload, content_type) VALUES (?, ?, 'TestEvent', ?, ?)")) {
            s.setObject(1, id);
            s.setString(2, topic);
            s.setBytes(3, payload);
            s.setString(4, contentType);
            s.executeUpdate();
        }
        return id;
    }

    private static Instant createdAt(RelayFixture fx, UUID id) throws Exception {
        try (Connection c = fx.jdbc();
                PreparedStatement s = c.prepareStatement("SELECT created_at FROM outbox_message WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }
}
