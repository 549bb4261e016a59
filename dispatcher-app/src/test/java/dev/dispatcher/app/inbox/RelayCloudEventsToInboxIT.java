package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.outbox.Relay;
import dev.dispatcher.app.outbox.RelayBreaker;
import dev.dispatcher.app.outbox.RelaySettings;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The relay in {@code cloudevents-structured} -> Kafka -> the inbox: the inbox stores each record under its
 * CloudEvents {@code id}, which is the outbox row's id, with the event's {@code type}, and handles each once. The
 * records go without their {@code message-id} header, as a producer that only speaks CloudEvents would send them, so
 * the id can only come from the event: the two sides agree on it. Read through a fresh connection.
 */
class RelayCloudEventsToInboxIT {

    @Test
    void theInboxStoresEachStructuredEventTheRelaySentUnderItsOutboxId() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_ce_relay")) {
            String topic = fx.topic("ce-e2e", 3);
            int n = 300;
            List<UUID> ids = seedOutbox(fx, topic, n);
            DispatcherMetrics metrics = InboxFixture.metrics();
            RelaySettings relaySettings = new RelaySettings("ce-e2e-relay", 100, 4, 64, Duration.ofSeconds(30),
                    Duration.ofMillis(100), Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(100),
                            Duration.ofSeconds(1), 2.0, Jitter.FULL, 5, new SplittableRandom(42)),
                    Duration.ofSeconds(20))
                    .withFormat(RecordFormat.cloudEventsStructured(URI.create("/shop/orders")));
            try (RecordPublisher publisher = Publishers.kafka(Publishers.withDefaults(
                    Map.of("bootstrap.servers", fx.kafka.bootstrapServers())), Map.of())) {
                Relay relay = new Relay(OutboxStore.r2dbc(fx.pool("ce-e2e-relay", 8)),
                        new WithoutMessageIdHeader(publisher), relaySettings, RelayBreaker.create("ce-e2e-relay"),
                        metrics, () -> false);
                fx.consumer(fx.receiver(topic, "ce-e2e-group"), InboxFixture.effectHandler(),
                        InboxFixture.settings("ce-e2e", "ce-e2e-inbox"), metrics);
                relay.start();
                try {
                    fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", n,
                            Duration.ofSeconds(60));
                } finally {
                    relay.stop().block(Duration.ofSeconds(30));
                }
            }

            assertThat(fx.count("SELECT count(*) FROM outbox_message WHERE status = 'DELIVERED'")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM inbox_message i JOIN outbox_message o"
                    + " ON i.message_id = o.id::text AND i.event_type = o.event_type")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM inbox_message")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(n);
            JsonNode event = JsonMapper.builder().build().readTree(storedValue(fx, ids.getFirst()));
            assertThat(event.get("id").asString()).isEqualTo(ids.getFirst().toString());
            assertThat(event.get("source").asString()).isEqualTo("/shop/orders");
            assertThat(event.get("data").toString()).isEqualTo("{\"n\":0}");
        }
    }

    private static List<UUID> seedOutbox(InboxFixture fx, String topic, int n) throws Exception {
        List<UUID> ids = new ArrayList<>(n);
        try (Connection c = fx.jdbc(); PreparedStatement insert = c.prepareStatement("INSERT INTO outbox_message"
                + " (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, 'OrderPlaced', ?)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                UUID id = UUID.randomUUID();
                ids.add(id);
                insert.setObject(1, id);
                insert.setString(2, topic);
                insert.setString(3, "key-" + (i % 20));
                insert.setBytes(4, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                insert.addBatch();
            }
            insert.executeBatch();
            c.commit();
        }
        return ids;
    }

    private static byte[] storedValue(InboxFixture fx, UUID id) throws Exception {
        try (Connection c = fx.jdbc();
                PreparedStatement s = c.prepareStatement("SELECT payload FROM inbox_message WHERE message_id = ?")) {
            s.setString(1, id.toString());
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getBytes(1);
            }
        }
    }

    /** The relay's publisher, sending every record without its {@code message-id} header. */
    private record WithoutMessageIdHeader(RecordPublisher delegate) implements RecordPublisher {

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return delegate.publish(records.stream().map(WithoutMessageIdHeader::stripped).toList(), ordered, pace);
        }

        @Override
        public Mono<List<List<PublishResult>>> publishAll(List<Lane> lanes, Pace pace) {
            return delegate.publishAll(lanes.stream().map(lane -> new Lane(lane.records().stream()
                    .map(WithoutMessageIdHeader::stripped).toList(), lane.ordered())).toList(), pace);
        }

        private static OutboundRecord stripped(OutboundRecord r) {
            Map<String, String> headers = new LinkedHashMap<>(r.headers());
            headers.remove("message-id");
            return new OutboundRecord(r.topic(), r.key(), r.value(), headers);
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return delegate.probe(timeout);
        }

        @Override
        public Mono<Optional<SendFailure>> checkTopic(String topic) {
            return delegate.checkTopic(topic);
        }

        @Override
        public void close() {
            // the test closes the delegate
        }
    }
}
