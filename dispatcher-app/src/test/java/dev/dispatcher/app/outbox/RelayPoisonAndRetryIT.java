package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Failures at hand-off: a record Kafka rejects is dead-lettered at once; transient failures are retried with
 * growing delays, and dead-lettered at exactly max-attempts; other keys keep flowing meanwhile.
 */
class RelayPoisonAndRetryIT {

    @Test
    void recordKafkaRejectsIsDeadLetteredAtOnceWhileOtherKeysAreDelivered() throws Exception {
        try (RelayFixture fx = new RelayFixture("poison")) {
            String topic = "poison-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            List<UUID> before = fx.seed(topic, 100, i -> "key-" + (i % 10));
            UUID tooLarge = insert(fx, topic, "poison-key", new byte[20_000]);
            UUID follower = insert(fx, topic, "poison-key", "{\"after\":\"poison\"}".getBytes());
            List<UUID> after = fx.seed(topic, 100, i -> "key-" + (i % 10));
            DispatcherMetrics metrics = RelayFixture.metrics();

            fx.relay(settings("poison-relay", 50, 500, 2.0, 5),
                    fx.publisher(fx.kafka.bootstrapServers(), Map.of("max.request.size", 10_000)), metrics);

            fx.awaitCount("status = 'DELIVERED'", 201, Duration.ofSeconds(30));
            fx.awaitCount("status = 'DEAD_LETTERED'", 1, Duration.ofSeconds(30));
            Row poison = row(fx, tooLarge);
            Row next = row(fx, follower);
            System.out.println("DIAG poison " + poison + " follower " + next);
            assertThat(poison.status()).isEqualTo("DEAD_LETTERED");
            assertThat(poison.attempts()).isEqualTo(1);
            assertThat(poison.lastError()).contains("RecordTooLarge");
            assertThat(poison.deadLetteredAt()).isNotNull();
            // A dead-lettered head unblocks its key; the follower never spent an attempt on the poison's failure.
            assertThat(next.status()).isEqualTo("DELIVERED");
            assertThat(next.attempts()).isEqualTo(1);
            assertThat(next.deliveredAt()).isAfterOrEqualTo(poison.deadLetteredAt());

            Set<String> onKafka = new HashSet<>();
            for (ConsumerRecord<String, byte[]> r : RelayCompetingIT.consumeAll(fx, topic)) {
                onKafka.add(RelayCompetingIT.header(r, "message-id"));
            }
            Set<String> expected = new HashSet<>(RelayCompetingIT.strings(before));
            expected.addAll(RelayCompetingIT.strings(after));
            expected.add(follower.toString());
            assertThat(onKafka).isEqualTo(expected);
            // the relay counts a message after its commit, which this thread may have seen first
            await("the dead letter and every publish counted").atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> {
                        assertThat(counter(metrics, "dead_lettered")).isEqualTo(1.0);
                        assertThat(counter(metrics, "published")).isEqualTo(201.0);
                    });
        }
    }

    @Test
    void transientFailuresAreRetriedWithGrowingDelaysThenDelivered() throws Exception {
        try (RelayFixture fx = new RelayFixture("retry")) {
            String topic = "retry-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            UUID flaky = insert(fx, topic, "flaky-key", "{\"flaky\":true}".getBytes());
            List<UUID> others = fx.seed(topic, 50, i -> "key-" + (i % 5));
            FlakyPublisher publisher = FlakyPublisher.failing(fx.publisher(), Set.of(flaky.toString()), 2);

            // No jitter: the delays after attempts 1 and 2 are exactly 600 ms and 2400 ms.
            fx.relay(settings("retry-relay", 600, 5_000, 4.0, 5), publisher, RelayFixture.metrics());

            // Sample the durable retry schedule between attempts (not while a claim holds the row):
            // visible_after - last_attempt_at per spent attempt. Each retry's schedule can be seen for its whole
            // delay, so the first delay is long enough for a sample to land in it on a loaded machine.
            Map<Integer, Long> scheduledGapMillis = new TreeMap<>();
            await("the flaky row delivered, its retry schedule sampled on the way").atMost(Duration.ofSeconds(20))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        Row r = row(fx, flaky);
                        if (r.status().equals("RETRY_SCHEDULED") && r.leaseUntil() == null) {
                            scheduledGapMillis.put(r.attempts(),
                                    Duration.between(r.lastAttemptAt(), r.visibleAfter()).toMillis());
                        }
                        return r.status().equals("DELIVERED");
                    });
            Row r = row(fx, flaky);
            List<Instant> handOffs = publisher.handOffTimes(flaky.toString());
            List<Long> handOffGaps = new ArrayList<>();
            for (int i = 1; i < handOffs.size(); i++) {
                handOffGaps.add(Duration.between(handOffs.get(i - 1), handOffs.get(i)).toMillis());
            }
            System.out.println("DIAG retry row=" + r + " scheduledGapMillis=" + scheduledGapMillis
                    + " handOffGapsMillis=" + handOffGaps);

            assertThat(r.status()).isEqualTo("DELIVERED");
            assertThat(r.attempts()).isEqualTo(3);
            assertThat(r.lastError()).contains(FlakyPublisher.INJECTED);
            assertThat(publisher.injected(flaky.toString())).isEqualTo(2);
            assertThat(handOffs).hasSize(3);
            // The durable schedule grows: at least 600 ms after the first attempt, 2400 ms after the second
            // (each gap also holds the time from claim to writing the retry).
            assertThat(scheduledGapMillis).containsOnlyKeys(1, 2);
            assertThat(scheduledGapMillis.get(1)).isGreaterThanOrEqualTo(600L);
            assertThat(scheduledGapMillis.get(2)).isGreaterThanOrEqualTo(2400L)
                    .isGreaterThan(scheduledGapMillis.get(1));
            // And the relay honours it: it does not hand the message off again before it is visible.
            assertThat(handOffGaps.get(0)).isGreaterThanOrEqualTo(580L);
            assertThat(handOffGaps.get(1)).isGreaterThanOrEqualTo(2380L).isGreaterThan(handOffGaps.get(0));

            fx.awaitCount("status = 'DELIVERED'", 51, Duration.ofSeconds(30));
            Set<String> onKafka = new HashSet<>();
            for (ConsumerRecord<String, byte[]> rec : RelayCompetingIT.consumeAll(fx, topic)) {
                onKafka.add(RelayCompetingIT.header(rec, "message-id"));
            }
            Set<String> expected = new HashSet<>(RelayCompetingIT.strings(others));
            expected.add(flaky.toString());
            assertThat(onKafka).isEqualTo(expected);
        }
    }

    @Test
    void alwaysFailingMessageIsDeadLetteredAtMaxAttemptsWhileOtherKeysFlow() throws Exception {
        try (RelayFixture fx = new RelayFixture("exhaust")) {
            String topic = "exhaust-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            UUID poisoned = insert(fx, topic, "poison-key", "{\"poison\":true}".getBytes());
            UUID follower = insert(fx, topic, "poison-key", "{\"after\":\"poison\"}".getBytes());
            List<UUID> others = fx.seed(topic, 300, i -> i % 10 == 0 ? null : "key-" + (i % 10));
            FlakyPublisher publisher = FlakyPublisher.failing(fx.publisher(), Set.of(poisoned.toString()),
                    Integer.MAX_VALUE);
            DispatcherMetrics metrics = RelayFixture.metrics();

            // Delays 400, 800, 1600, 3200 ms: the poison is dead-lettered about 6 s after it is first tried, time
            // enough for a loaded machine to deliver the 300 others meanwhile.
            fx.relay(settings("exhaust-relay", 400, 5_000, 2.0, 5), publisher, metrics);

            fx.awaitCount("status = 'DEAD_LETTERED'", 1, Duration.ofSeconds(30));
            fx.awaitCount("status = 'DELIVERED'", 301, Duration.ofSeconds(30));
            Row poison = row(fx, poisoned);
            Row next = row(fx, follower);
            Instant lastOtherDelivered = lastDelivered(fx, others);
            System.out.println("DIAG exhaust poison=" + poison + " follower=" + next + " lastOtherDelivered="
                    + lastOtherDelivered + " injected=" + publisher.injected(poisoned.toString()));

            assertThat(poison.status()).isEqualTo("DEAD_LETTERED");
            assertThat(poison.attempts()).isEqualTo(5);
            assertThat(poison.lastError()).contains("5 attempts").contains(FlakyPublisher.INJECTED);
            assertThat(publisher.injected(poisoned.toString())).isEqualTo(5);
            // Other keys kept flowing: all of them were delivered before the poison was given up on.
            assertThat(lastOtherDelivered).isBefore(poison.deadLetteredAt());
            // Its own key waited behind it, then went on without having spent attempts on the poison's failures.
            assertThat(next.status()).isEqualTo("DELIVERED");
            assertThat(next.attempts()).isEqualTo(1);
            assertThat(next.deliveredAt()).isAfterOrEqualTo(poison.deadLetteredAt());

            Set<String> onKafka = new HashSet<>();
            for (ConsumerRecord<String, byte[]> rec : RelayCompetingIT.consumeAll(fx, topic)) {
                onKafka.add(RelayCompetingIT.header(rec, "message-id"));
            }
            Set<String> expected = new HashSet<>(RelayCompetingIT.strings(others));
            expected.add(follower.toString());
            assertThat(onKafka).isEqualTo(expected);
            await("the dead letter and its failures counted").atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> {
                        assertThat(counter(metrics, "dead_lettered")).isEqualTo(1.0);
                        assertThat(counter(metrics, "failed")).isEqualTo(5.0);
                    });
        }
    }

    /** Test settings with small, un-jittered delays and a fast poll (retries become visible without a NOTIFY). */
    private static RelaySettings settings(String workerId, long initialMillis, long maxMillis, double multiplier,
            int maxAttempts) {
        return new RelaySettings(workerId, 100, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(50),
                Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(initialMillis), Duration.ofMillis(maxMillis),
                        multiplier, Jitter.NONE, maxAttempts, new SplittableRandom(7)),
                Duration.ofSeconds(20));
    }

    private static double counter(DispatcherMetrics metrics, String result) {
        var c = metrics.registry().find("dispatcher.messages").tag("result", result).counter();
        return c == null ? 0.0 : c.count();
    }

    static UUID insert(RelayFixture fx, String topic, String key, byte[] payload) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO outbox_message (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, ?, ?)")) {
            s.setObject(1, id);
            s.setString(2, topic);
            s.setString(3, key);
            s.setString(4, "TestEvent");
            s.setBytes(5, payload);
            s.executeUpdate();
        }
        return id;
    }

    record Row(String status, int attempts, String lastError, Instant lastAttemptAt, Instant visibleAfter,
            Instant deliveredAt, Instant deadLetteredAt, Instant leaseUntil) {
    }

    static Row row(RelayFixture fx, UUID id) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement("""
                SELECT status, attempts, last_error, last_attempt_at, visible_after, delivered_at, dead_lettered_at,
                       lease_until
                  FROM outbox_message WHERE id = ?""")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("row %s exists", id).isTrue();
                return new Row(rs.getString(1), rs.getInt(2), rs.getString(3), instant(rs.getTimestamp(4)),
                        instant(rs.getTimestamp(5)), instant(rs.getTimestamp(6)), instant(rs.getTimestamp(7)),
                        instant(rs.getTimestamp(8)));
            }
        }
    }

    private static Instant lastDelivered(RelayFixture fx, List<UUID> ids) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT max(delivered_at) FROM outbox_message WHERE id = ANY(?) AND status = 'DELIVERED'")) {
            s.setArray(1, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return instant(rs.getTimestamp(1));
            }
        }
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
