package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.KafkaFailures;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.OperatorMutation;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.micrometer.core.instrument.Counter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.junit.jupiter.api.Test;

/**
 * One fault per test, on the shared broker with topic auto-creation off (as production brokers run): a missing topic,
 * a topic deleted while its rows wait, a record too large for the topic, and a topic short of in-sync replicas. Each
 * test reads the bad row's final state (status, attempts, last error) through its own connection, and checks that the
 * rows of a healthy topic were delivered meanwhile.
 */
class RelayTopicFaultsIT {

    private static final Duration MISSING_TOPIC_TIMEOUT = Duration.ofSeconds(4);

    @Test
    void aMissingTopicsRowIsHeldBackThenDeadLetteredWithTheCauseWhileOtherTopicsFlowAndReplayDeliversItOnceCreated()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("missing")) {
            String healthy = "healthy-" + fx.schema;
            String missing = "missing-" + fx.schema;
            fx.kafka.createTopic(healthy, 3);
            UUID lost = RelayPoisonAndRetryIT.insert(fx, missing, "m-key", "{\"lost\":true}".getBytes());
            List<UUID> others = fx.seed(healthy, 300, i -> "key-" + (i % 10));
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("missing-relay"), fx.publisher(), metrics);

            RelayPoisonAndRetryIT.Row held = awaitHeldBack(fx, lost);
            fx.awaitCount("status = 'DELIVERED'", 300, Duration.ofSeconds(30));
            fx.awaitCount("status = 'DEAD_LETTERED'", 1, Duration.ofSeconds(30));
            RelayPoisonAndRetryIT.Row dead = RelayPoisonAndRetryIT.row(fx, lost);

            assertThat(held.status()).as("held back, its attempt given back").isEqualTo("PENDING");
            assertThat(held.attempts()).isZero();
            assertThat(held.lastError()).startsWith("topic '" + missing + "' does not exist "
                    + "(UNKNOWN_TOPIC_OR_PARTITION), missing for");
            assertThat(held.visibleAfter()).as("given back with a delay").isAfter(held.lastAttemptAt());
            assertThat(dead.status()).isEqualTo("DEAD_LETTERED");
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).isEqualTo("permanent failure: topic '" + missing + "' does not exist "
                    + "(UNKNOWN_TOPIC_OR_PARTITION) for PT4S (the missing-topic timeout)");
            assertThat(lastDelivered(fx, healthy)).as("the healthy topic flowed while the other was missing")
                    .isBefore(dead.deadLetteredAt());
            assertThat(failures(metrics, missing, "unknown_topic")).isPositive();

            fx.kafka.createTopic(missing, 1);
            OperatorStore operator = OperatorStore.r2dbc(fx.pool("operator"), OutboxStore.r2dbc(fx.pool("op-outbox")),
                    Duration.ofSeconds(5));
            OperatorMutation replayed = operator.replay(lost, version(fx, lost), "test-operator")
                    .block(Duration.ofSeconds(20));
            assertThat(replayed).isInstanceOf(OperatorMutation.Done.class);
            fx.awaitCount("status = 'DELIVERED' AND id = '" + lost + "'", 1, Duration.ofSeconds(30));
            assertThat(RelayCompetingIT.consumeAll(fx, missing)).singleElement()
                    .satisfies(r -> assertThat(RelayCompetingIT.header(r, "message-id")).isEqualTo(lost.toString()));
            assertThat(RelayCompetingIT.consumeAll(fx, healthy)).hasSize(others.size());
        }
    }

    @Test
    void rowsOfATopicDeletedWhileTheyWaitAreDeadLetteredWithTheCauseWhileOtherTopicsFlow() throws Exception {
        try (RelayFixture fx = new RelayFixture("deleted")) {
            String healthy = "healthy-" + fx.schema;
            String doomed = "doomed-" + fx.schema;
            fx.kafka.createTopic(healthy, 3);
            fx.kafka.createTopic(doomed, 1);
            UUID first = RelayPoisonAndRetryIT.insert(fx, doomed, "d-key", "{\"n\":0}".getBytes());
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(), Map.of("max.block.ms", 2_000));
            fx.relay(settings("deleted-relay"), publisher, RelayFixture.metrics());
            fx.awaitCount("status = 'DELIVERED' AND id = '" + first + "'", 1, Duration.ofSeconds(30));

            // rows that wait (not visible for a few seconds) while their topic is deleted; healthy rows beside them
            List<UUID> waiting = insertVisibleIn(fx, doomed, 5, Duration.ofSeconds(3));
            List<UUID> others = insertVisibleIn(fx, healthy, 200, Duration.ofSeconds(3));
            fx.kafka.deleteTopics(List.of(doomed));

            fx.awaitCount("status = 'DELIVERED' AND topic = '" + healthy + "'", others.size(), Duration.ofSeconds(30));
            fx.awaitCount("status = 'DEAD_LETTERED'", waiting.size(), Duration.ofSeconds(40));

            for (UUID id : waiting) {
                RelayPoisonAndRetryIT.Row row = RelayPoisonAndRetryIT.row(fx, id);
                assertThat(row.status()).isEqualTo("DEAD_LETTERED");
                assertThat(row.attempts()).as("no attempt spent while the topic was missing").isEqualTo(1);
                assertThat(row.lastError()).isEqualTo("permanent failure: topic '" + doomed + "' does not exist "
                        + "(UNKNOWN_TOPIC_OR_PARTITION) for PT4S (the missing-topic timeout)");
                assertThat(lastDelivered(fx, healthy)).isBefore(row.deadLetteredAt());
            }
            assertThat(RelayCompetingIT.consumeAll(fx, healthy)).hasSize(others.size());
        }
    }

    @Test
    void aRecordTooLargeForItsTopicIsDeadLetteredOnItsFirstAttemptWhileOtherTopicsFlow() throws Exception {
        try (RelayFixture fx = new RelayFixture("toolarge")) {
            String healthy = "healthy-" + fx.schema;
            String strict = "strict-" + fx.schema;
            fx.kafka.createTopic(healthy, 3);
            // the broker takes far less for this topic than the producer's max.request.size (1 MB) lets out
            fx.kafka.createTopic(strict, 1, Map.of("max.message.bytes", "2000"));
            UUID tooLarge = RelayPoisonAndRetryIT.insert(fx, strict, "s-key", new byte[20_000]);
            UUID follower = RelayPoisonAndRetryIT.insert(fx, strict, "s-key", "{\"small\":true}".getBytes());
            List<UUID> others = fx.seed(healthy, 200, i -> "key-" + (i % 10));
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("toolarge-relay"), fx.publisher(), metrics);

            fx.awaitCount("status = 'DELIVERED'", others.size() + 1, Duration.ofSeconds(30));
            RelayPoisonAndRetryIT.Row row = RelayPoisonAndRetryIT.row(fx, tooLarge);

            assertThat(row.status()).isEqualTo("DEAD_LETTERED");
            assertThat(row.attempts()).as("dead-lettered on its first attempt").isEqualTo(1);
            assertThat(row.lastError()).startsWith("permanent failure: RecordTooLargeException");
            assertThat(RelayPoisonAndRetryIT.row(fx, follower).status()).isEqualTo("DELIVERED");
            assertThat(failures(metrics, strict, "record_too_large")).isEqualTo(1.0);
            assertThat(RelayCompetingIT.consumeAll(fx, healthy)).hasSize(others.size());
        }
    }

    /**
     * The shared single-broker cluster cannot make a partition short of in-sync replicas: Kafka 4.1 counts a topic's
     * {@code min.insync.replicas} at most up to its replication factor, so {@code acks=all} writes to a one-replica
     * topic with {@code min.insync.replicas=2} succeed. The failure is injected at the publisher's boundary instead,
     * as the real publisher reports it ({@link KafkaFailures} classifying Kafka's own exception).
     */
    @Test
    void aTopicShortOfInSyncReplicasHasItsRowsGivenBackWithoutSpendingAttemptsWhileOtherTopicsFlow()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("replicas")) {
            String healthy = "healthy-" + fx.schema;
            String starved = "starved-" + fx.schema;
            fx.kafka.createTopic(healthy, 3);
            fx.kafka.createTopic(starved, 1);
            SendFailure notEnoughReplicas = KafkaFailures.classify(new NotEnoughReplicasException(
                    "Messages are rejected since there are fewer in-sync replicas than required."), starved);
            FaultPublisher publisher = FaultPublisher.topic(fx.publisher(), starved, notEnoughReplicas);
            List<UUID> stuck = fx.seed(starved, 20, i -> "s-" + (i % 4));
            List<UUID> others = fx.seed(healthy, 300, i -> "key-" + (i % 10));
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("replicas-relay"), publisher, metrics);

            fx.awaitCount("status = 'DELIVERED' AND topic = '" + healthy + "'", others.size(), Duration.ofSeconds(30));
            RelayPoisonAndRetryIT.Row head = awaitHeldBack(fx, stuck.getFirst());

            assertThat(head.status()).isEqualTo("PENDING");
            assertThat(head.attempts()).as("no attempt spent").isZero();
            assertThat(head.lastError()).startsWith("NotEnoughReplicasException: Messages are rejected");
            assertThat(fx.count("topic = '" + starved + "' AND lease_until IS NULL"
                    + " AND (status <> 'PENDING' OR attempts > 0)"))
                    .as("nothing of the starved topic dead-lettered, retried or charged an attempt").isZero();
            assertThat(failures(metrics, starved, "not_enough_replicas")).isPositive();
            int refusedWhileOpen = publisher.refused.get();

            publisher.failing = false; // the replicas caught up
            fx.awaitCount("status = 'DELIVERED'", others.size() + stuck.size(), Duration.ofSeconds(60));
            assertThat(fx.count("topic = '" + starved + "' AND attempts <> 1")).isZero();
            assertThat(refusedWhileOpen).as("the topic's breaker opened on its first lanes and kept its rows from"
                    + " being handed off again (4 keys' heads in the first claim)").isBetween(1, 8);
        }
    }

    /** Test settings: fast polls and the short missing-topic timeout; retries would spend attempts (none expected). */
    static RelaySettings settings(String workerId) {
        return new RelaySettings(workerId, 100, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(100),
                Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(200), Duration.ofSeconds(1), 2.0, Jitter.FULL, 5,
                        new SplittableRandom(11)), Duration.ofSeconds(20), RelaySettings.DEFAULT_CLAIM_LINGER,
                MISSING_TOPIC_TIMEOUT);
    }

    /** Samples {@code id} until it is given back (not leased) with a last error, and returns that state. */
    private static RelayPoisonAndRetryIT.Row awaitHeldBack(RelayFixture fx, UUID id) throws Exception {
        return await("row %s given back, not leased, with a last error".formatted(id))
                .atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                .until(() -> RelayPoisonAndRetryIT.row(fx, id), row -> row.leaseUntil() == null
                        && row.lastError() != null && row.status().equals("PENDING"));
    }

    /** Inserts {@code n} rows visible only after {@code in}, keyed {@code <topic>-<i % 10>}. */
    private static List<UUID> insertVisibleIn(RelayFixture fx, String topic, int n, Duration in) throws Exception {
        List<UUID> ids = new ArrayList<>();
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload, visible_after)
                VALUES (?, ?, ?, 'TestEvent', '\\x7b7d'::bytea, now() + ?::bigint * interval '1 millisecond')""")) {
            for (int i = 0; i < n; i++) {
                UUID id = UUID.randomUUID();
                s.setObject(1, id);
                s.setString(2, topic);
                s.setString(3, topic + "-" + (i % 10)); // a key of this topic only: keys order across topics
                s.setLong(4, in.toMillis());
                s.executeUpdate();
                ids.add(id);
            }
        }
        return ids;
    }

    private static Instant lastDelivered(RelayFixture fx, String topic) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT max(delivered_at) FROM outbox_message WHERE topic = ? AND status = 'DELIVERED'")) {
            s.setString(1, topic);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                Timestamp t = rs.getTimestamp(1);
                return t == null ? null : t.toInstant();
            }
        }
    }

    private static long version(RelayFixture fx, UUID id) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT version FROM outbox_message WHERE id = ?")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static double failures(DispatcherMetrics metrics, String topic, String cause) {
        return metrics.registry().find("dispatcher.publish.failures").tag("topic", topic).tag("cause", cause)
                .counters().stream().mapToDouble(Counter::count).sum();
    }
}
