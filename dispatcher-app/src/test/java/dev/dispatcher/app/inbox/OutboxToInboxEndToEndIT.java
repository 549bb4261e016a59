package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.outbox.Relay;
import dev.dispatcher.app.outbox.RelayBreaker;
import dev.dispatcher.app.outbox.RelaySettings;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.r2dbc.pool.ConnectionPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Outbox relay -> Kafka -> inbox -> in-process handler: every message's effect happens exactly once. */
class OutboxToInboxEndToEndIT {

    @Test
    void tenThousandMessagesFromOutboxToHandlerTakeEffectExactlyOnce() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_e2e")) {
            String topic = fx.topic("e2e", 3);
            int n = 10_000;
            seedOutbox(fx, topic, n);
            long start = System.nanoTime();

            DispatcherMetrics metrics = InboxFixture.metrics();
            RelaySettings relaySettings = new RelaySettings("e2e-relay", 500, 4, 64, Duration.ofSeconds(30),
                    Duration.ofMillis(100), Ordering.NONE,
                    RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.FULL, 5,
                            new SplittableRandom(42)),
                    Duration.ofSeconds(20));
            Map<String, Object> producer = Map.of("bootstrap.servers", fx.kafka.bootstrapServers(),
                    "linger.ms", 5, "batch.size", 131072, "delivery.timeout.ms", 30000,
                    "request.timeout.ms", 10000, "max.block.ms", 10000);
            try (RecordPublisher publisher = Publishers.kafka(producer,
                    Map.of("bootstrap.servers", fx.kafka.bootstrapServers()))) {
                ConnectionPool relayPool = fx.pool("e2e-relay", 8);
                Relay relay = new Relay(OutboxStore.r2dbc(relayPool), publisher, relaySettings,
                        RelayBreaker.create("e2e-relay"), metrics, () -> false);
                InboxSettings settings = new InboxSettings("e2e", "e2e-inbox", 128, 16, 4, Duration.ofSeconds(30),
                        Duration.ofMillis(100), Duration.ofMillis(5),
                        InboxFixture.settings("e2e", "e2e-inbox").loop().retryPolicy(), 10_000, Duration.ofSeconds(60),
                        Duration.ofSeconds(10), InboxFixture.MAX_PAYLOAD_BYTES);
                fx.consumer(fx.receiver(topic, "e2e-group"), InboxFixture.effectHandler(), settings, metrics);
                relay.start();
                try {
                    fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", n,
                            Duration.ofSeconds(90));
                } finally {
                    relay.stop().block(Duration.ofSeconds(30));
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("DIAG e2e: %d messages outbox -> inbox handler in %.1f s (%.0f msg/s)%n", n, seconds,
                    n / seconds);

            assertThat(fx.count("SELECT count(*) FROM outbox_message WHERE status = 'DELIVERED'")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(n);
            assertThat(fx.count("SELECT count(DISTINCT message_id) FROM effect")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM outbox_message o JOIN effect e ON e.message_id = o.id::text"))
                    .isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM inbox_message")).isEqualTo(n);
            // the consumer counts a message after its commit, which this thread may have seen first
            InboxFixture.await("every completion counted", () -> InboxFixture.counter(metrics, "succeeded") >= n,
                    Duration.ofSeconds(30));
            assertThat(InboxFixture.counter(metrics, "succeeded")).isEqualTo(n);
        }
    }

    private static void seedOutbox(InboxFixture fx, String topic, int n) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox_message (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, 'E2E', ?)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                insert.setObject(1, UUID.randomUUID());
                insert.setString(2, topic);
                insert.setString(3, "key-" + (i % 50));
                insert.setBytes(4, ("{\"n\":" + i + "}").getBytes());
                insert.addBatch();
            }
            insert.executeBatch();
            c.commit();
        }
    }
}
