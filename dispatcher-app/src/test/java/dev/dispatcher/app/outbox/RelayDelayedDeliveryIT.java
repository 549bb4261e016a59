package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.WrittenMessage;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Delayed delivery through the relay: a message written with a delay is not claimed before its
 * {@code visible_after} (checked on the database clock, from the row's own claim time), and, per key, a delayed
 * head holds back its key: the key's later rows wait for it and then follow it in order, while other keys flow.
 */
class RelayDelayedDeliveryIT {

    private static final Duration DELAY = Duration.ofSeconds(3);

    @Test
    void aDelayedHeadHoldsBackItsKeyUntilItsTimeWhileOtherKeysFlow() throws Exception {
        try (RelayFixture fx = new RelayFixture("delayed")) {
            String topic = "delayed-" + fx.schema;
            fx.kafka.createTopic(topic, 1);
            JdbcOutboxWriter outbox = JdbcOutboxWriter.create();
            WrittenMessage held;
            try (Connection tx = fx.jdbc()) {
                tx.setAutoCommit(false);
                held = outbox.write(tx, message(topic, "k", "held").delay(DELAY).build());
                outbox.write(tx, message(topic, "k", "follower").build());
                outbox.write(tx, message(topic, "other", "free").build());
                tx.commit();
            }

            fx.relay(RelayFixture.settings("delayed-relay", Ordering.PER_KEY), fx.publisher(), RelayFixture.metrics());

            fx.awaitCount("event_type = 'free' AND status = 'DELIVERED'", 1, Duration.ofSeconds(20));
            // the relay has claimed since the rows were written, and passed over key k: neither row was leased
            assertThat(fx.count("message_key = 'k' AND status = 'PENDING' AND attempts = 0"))
                    .as("key k untouched while its head waits").isEqualTo(2);
            assertThat(fx.count("id = '" + held.id() + "' AND visible_after > clock_timestamp()"))
                    .as("still before the held row's time").isEqualTo(1);

            fx.awaitCount("message_key = 'k' AND status = 'DELIVERED'", 2, Duration.ofSeconds(30));
            assertThat(fx.count("message_key = 'k' AND last_attempt_at < (SELECT visible_after FROM outbox_message"
                    + " WHERE id = '" + held.id() + "')"))
                    .as("no row of key k claimed before the held row's visible_after").isZero();
            List<String> types = fx.kafka.consume(topic, 3, Duration.ofSeconds(30)).stream()
                    .filter(r -> "k".equals(r.key()))
                    .map(RelayDelayedDeliveryIT::type)
                    .toList();
            assertThat(types).containsExactly("held", "follower");
        }
    }

    private static OutboxMessage.Builder message(String topic, String key, String type) {
        return OutboxMessage.builder(topic, type).key(key).jsonPayload("{}");
    }

    private static String type(ConsumerRecord<String, byte[]> r) {
        return new String(r.headers().lastHeader("event-type").value(), StandardCharsets.UTF_8);
    }
}
