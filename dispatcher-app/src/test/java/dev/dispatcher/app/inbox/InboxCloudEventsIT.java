package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.DispatcherMetrics;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.kafka.CloudEventSerializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records produced by the CloudEvents Java SDK ({@code cloudevents-kafka}) in binary and structured mode: the inbox
 * stores each under its event id and its event type, and the same event sent again (a producer's retry, a
 * re-publication at another offset) is a duplicate, handled once; a record with the relay's {@code message-id} is
 * known by that, whatever {@code ce_id} it also carries. Read through a fresh connection.
 */
class InboxCloudEventsIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @ParameterizedTest
    @ValueSource(strings = {"BINARY", "STRUCTURED"})
    void anEventIsStoredUnderItsIdAndTypeAndTheSameEventAgainIsADuplicate(String mode) throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_ce_" + mode.toLowerCase())) {
            String topic = fx.topic("events", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "ce-" + mode), InboxFixture.effectHandler(),
                    InboxFixture.settings("events", "ce-" + mode), metrics);
            CloudEvent placed = event("evt-" + mode + "-1", "com.example.OrderPlaced", "{\"order\":1}");
            CloudEvent paid = event("evt-" + mode + "-2", "com.example.OrderPaid", "{\"order\":1,\"paid\":true}");

            try (KafkaProducer<String, CloudEvent> producer = producer(fx, mode)) {
                for (CloudEvent e : List.of(placed, paid, placed)) { // the first event twice, at another offset
                    producer.send(new ProducerRecord<>(topic, "order-1", e)).get();
                }
            }

            fx.awaitCount("SELECT count(*) FROM effect", 2, WAIT);
            InboxFixture.await("the third record counted as a duplicate",
                    () -> InboxFixture.counter(metrics, "duplicate") == 1, WAIT);
            assertThat(rows(fx)).containsExactly(
                    List.of(placed.getId(), "com.example.OrderPlaced", "0", "COMPLETED"),
                    List.of(paid.getId(), "com.example.OrderPaid", "1", "COMPLETED"));
            assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = '" + placed.getId() + "'"))
                    .as("the event handled once").isEqualTo(1);
        }
    }

    @Test
    void aRecordWithTheRelaysMessageIdIsKnownByItNotByTheCeIdBesideIt() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_ce_both")) {
            String topic = fx.topic("both", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "ce-both"), InboxFixture.effectHandler(),
                    InboxFixture.settings("both", "ce-both"), metrics);
            // the victim's message, then another producer's whose stored headers name the victim's id as ce_id
            fx.sendRaw(topic, 0, utf8("k"), utf8("{\"n\":1}"), "message-id", "victim-1", "event-type", "Placed");
            fx.sendRaw(topic, 0, utf8("k"), utf8("{\"n\":2}"), "message-id", "m-2", "event-type", "Placed",
                    "ce_id", "victim-1", "ce_specversion", "1.0");

            fx.awaitCount("SELECT count(*) FROM effect", 2, WAIT);
            assertThat(rows(fx)).extracting(row -> row.get(0)).containsExactly("victim-1", "m-2");
            assertThat(InboxFixture.counter(metrics, "duplicate")).as("neither is a duplicate").isZero();
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static CloudEvent event(String id, String type, String json) {
        return CloudEventBuilder.v1()
                .withId(id)
                .withSource(URI.create("/orders"))
                .withType(type)
                .withSubject("order-1")
                .withData("application/json", json.getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** The SDK's producer in {@code mode}: ce_ headers and the data as value, or the event as JSON. */
    private static KafkaProducer<String, CloudEvent> producer(InboxFixture fx, String mode) {
        CloudEventSerializer events = new CloudEventSerializer();
        events.configure(Map.of(CloudEventSerializer.ENCODING_CONFIG, mode,
                CloudEventSerializer.EVENT_FORMAT_CONFIG, JsonFormat.CONTENT_TYPE), false);
        return new KafkaProducer<>(Map.of("bootstrap.servers", fx.kafka.bootstrapServers(), "acks", "all"),
                new StringSerializer(), events);
    }

    /** message id, event type, source offset and status of every row, in offset order. */
    private static List<List<String>> rows(InboxFixture fx) throws Exception {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT message_id, event_type, source_offset, status FROM inbox_message ORDER BY source_offset");
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                rows.add(List.of(r.getString(1), r.getString(2), Long.toString(r.getLong(3)), r.getString(4)));
            }
        }
        return rows;
    }
}
