package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.Invariants;
import dev.dispatcher.app.kafka.ClusterCheck;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.TopicDurability;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.testkit.EmbeddedKafkaCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay on a three-broker cluster (replication 3, {@code min.insync.replicas} 2) while brokers stop under it, as
 * production clusters lose them: an application keeps writing rows, the partition's leader stops mid-drain, then the
 * new leader too. Durable state is read through the fixture's own connections, and what reached Kafka is read back
 * from the topic. One cluster for the class; each test leaves every broker running.
 */
class RelayKafkaClusterIT {

    private static final int KEYS = 40;
    private static final Duration AWAIT = Duration.ofSeconds(30);
    /** Short producer timeouts, as an operator would set them: a refused topic gives its rows back in seconds. */
    private static final Map<String, Object> PRODUCER = Map.of(
            "delivery.timeout.ms", 4_000, "request.timeout.ms", 1_500, "max.block.ms", 2_000,
            "reconnect.backoff.max.ms", 500, "retry.backoff.max.ms", 500);

    private static EmbeddedKafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = EmbeddedKafkaCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void restartStoppedBrokers() {
        for (int id : cluster.brokerIds()) {
            if (!cluster.runningBrokers().contains(id)) {
                cluster.startBroker(id);
            }
        }
    }

    @Test
    void leaderLostMidDrainLosesNothingTwoLostHoldTheTopicWithoutSpendingAttemptsAndKeysKeepTheirOrder()
            throws Exception {
        try (RelayKafkaOutageIT.BlockingWatch blocking = RelayKafkaOutageIT.BlockingWatch.install();
                RelayFixture fx = new RelayFixture("cluster", cluster)) {
            String topic = "cluster-" + fx.schema;
            String lenient = "lenient-" + fx.schema;
            cluster.createTopic(topic, 1);
            cluster.createTopic(lenient, 1, Map.of("min.insync.replicas", "1"));
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(settings("cluster-relay"), fx.publisher(cluster.bootstrapServers(), PRODUCER), metrics);

            RowWriter writer = RowWriter.start(fx, List.of(topic, topic, topic, lenient));
            try {
                RelayKafkaOutageIT.awaitAtLeast(fx, "status = 'DELIVERED'", 200, AWAIT);

                // one broker lost: the partition's leader, mid-drain
                int leader = cluster.leaderOf(topic, 0);
                long lastSeqBeforeStop = lastSeq(fx);
                long stoppedAt = System.nanoTime();
                cluster.stopBroker(leader);
                int newLeader = cluster.awaitLeader(topic, 0, AWAIT);
                awaitDeliveredAfter(fx, topic, lastSeqBeforeStop);
                long resumedMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
                System.out.println("DIAG cluster leader " + leader + " -> " + newLeader + ", a row written after the"
                        + " stop delivered " + resumedMillis + " ms after it; statuses " + fx.statusCounts());
                assertThat(newLeader).isNotEqualTo(leader);
                assertThat(resumedMillis).as("the drain resumes within seconds of the leader's loss")
                        .isLessThan(15_000);
                assertThat(fx.count("status IN ('RETRY_SCHEDULED', 'DEAD_LETTERED')")).isZero();
                long deliveredOnTwo = fx.count("status = 'DELIVERED'");
                RelayKafkaOutageIT.awaitAtLeast(fx, "status = 'DELIVERED'", deliveredOnTwo + 100, AWAIT);

                // two brokers lost: one in-sync replica left, fewer than the topic's min.insync.replicas
                cluster.stopBroker(newLeader);
                cluster.awaitIsr(topic, 1, AWAIT);
                long lastSeqAtOneReplica = lastSeq(fx);
                List<Snapshot> samples = new ArrayList<>();
                // sampled every 200 ms, each sample as it must be, for five seconds of one replica
                Invariants.holdFor("rows of the topic held, unspent and unacknowledged, with one in-sync replica",
                        Duration.ofSeconds(5), Duration.ofMillis(200), () -> {
                    Snapshot s = Snapshot.take(fx, topic, lastSeqAtOneReplica);
                    samples.add(s);
                    assertThat(s.retryOrDead()).as("unavailability spends no attempt: %s", s).isZero();
                    assertThat(s.givenBackWithAttempts()).as("rows given back got their attempt back: %s", s)
                            .isZero();
                    assertThat(s.deliveredAfter()).as("nothing is acknowledged by one replica: %s", s)
                            .isZero();
                });
                // a topic that needs one replica only is writable meanwhile: the relay's per-topic isolation shows here
                String lenientWhileHeld = "topic = '" + lenient + "' AND seq > " + lastSeqAtOneReplica;
                System.out.println("DIAG cluster min.insync=1 topic while the other was held: written "
                        + fx.count(lenientWhileHeld) + ", delivered "
                        + fx.count(lenientWhileHeld + " AND status = 'DELIVERED'"));
                assertThat(fx.count(lenientWhileHeld + " AND status = 'DELIVERED'"))
                        .as("a topic with enough in-sync replicas flows while the other is held")
                        .isGreaterThanOrEqualTo(fx.count(lenientWhileHeld) / 2);
                System.out.println("DIAG cluster one replica: first " + samples.getFirst() + " last "
                        + samples.getLast() + "; errors " + fx.lastErrors() + "; releases "
                        + RelayKafkaOutageIT.counter(metrics, "release", "applied"));
                assertThat(samples.getLast().live()).as("rows wait, live").isPositive();
                assertThat(RelayKafkaOutageIT.counter(metrics, "release", "applied"))
                        .as("the relay tried, was refused and gave rows back").isPositive();

                // a broker returns: two in sync again, delivery resumes
                long returnedAt = System.nanoTime();
                cluster.startBroker(newLeader);
                awaitDeliveredAfter(fx, topic, lastSeqAtOneReplica);
                System.out.println("DIAG cluster a broker returned; first row held meanwhile delivered "
                        + (System.nanoTime() - returnedAt) / 1_000_000 + " ms later");
            } finally {
                writer.close();
            }

            List<UUID> written = writer.ids();
            fx.awaitCount("status = 'DELIVERED'", written.size(), AWAIT);
            assertThat(fx.count("attempts <> 1")).as("each row spent exactly its delivering attempt").isZero();
            assertThat(blocking.failures()).as("blocking calls on non-blocking threads").isEmpty();

            Delivered onKafka = Delivered.read(fx, List.of(topic, lenient));
            System.out.println("DIAG cluster written " + written.size() + ", records " + onKafka.records()
                    + ", distinct " + onKafka.firstByKey().values().stream().mapToInt(List::size).sum()
                    + ", duplicates " + onKafka.duplicates());
            assertThat(onKafka.ids()).as("0 lost").containsAll(RelayCompetingIT.strings(written));
            assertThat(onKafka.firstByKey()).as("each key's first occurrences in the order written")
                    .isEqualTo(writer.byKey());
        }
    }

    /**
     * The start-up durability check on a real three-broker cluster: a topic whose acknowledged records may live on
     * one broker ({@code min.insync.replicas} 1) is warned about once however often it is published to, and one with
     * the cluster's default of 2 is not.
     */
    @Test
    void aTopicWithMinInsyncOneIsWarnedAboutOnceAndOneWithTwoIsNot() throws Exception {
        String weak = "weak-durability";
        String strong = "strong-durability";
        cluster.createTopic(weak, 1, Map.of("min.insync.replicas", "1"));
        cluster.createTopic(strong, 1);
        Map<String, Object> producer = new HashMap<>(Publishers.withDefaults(Map.of()));
        producer.put("bootstrap.servers", cluster.bootstrapServers());
        try (WarningLog warnings = WarningLog.attach("dev.dispatcher.app.kafka.TopicDurabilityWarnings");
                RecordPublisher publisher = Publishers.kafka(producer,
                        Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            // the strong topic is met first, so its check (checks run one at a time) is done once the weak one warns
            for (int round = 0; round < 3; round++) {
                assertThat(publisher.publishAll(List.of(lane(strong), lane(weak)), RecordPublisher.Pace.PROMPT)
                        .block(AWAIT)).hasSize(2);
            }
            await("a durability warning logged").atMost(AWAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> !warnings.messages().isEmpty());
            assertThat(publisher.publishAll(List.of(lane(strong), lane(weak)), RecordPublisher.Pace.PROMPT)
                    .block(AWAIT)).hasSize(2);

            assertThat(warnings.messages()).singleElement().satisfies(message -> assertThat(message)
                    .startsWith("topic " + weak + " has min.insync.replicas=1 on a cluster of 3 brokers"));
        }
        try (ClusterCheck check = new ClusterCheck(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertThat(check.topicDurability(strong, AWAIT).block(AWAIT))
                    .isEqualTo(new TopicDurability(strong, 3, 2));
        }
    }

    private static RecordPublisher.Lane lane(String topic) {
        return new RecordPublisher.Lane(List.of(new OutboundRecord(topic, "k", new byte[] {1}, Map.of())), true);
    }

    static RelaySettings settings(String workerId) {
        return new RelaySettings(workerId, 100, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(100),
                Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(200), Duration.ofSeconds(1), 2.0, Jitter.FULL, 5,
                        new SplittableRandom(40)), Duration.ofSeconds(20));
    }

    /** Waits until a row of {@code topic} written after {@code seq} was delivered. */
    private static void awaitDeliveredAfter(RelayFixture fx, String topic, long seq) throws Exception {
        RelayKafkaOutageIT.awaitAtLeast(fx, "status = 'DELIVERED' AND topic = '" + topic + "' AND seq > " + seq, 1,
                AWAIT);
    }

    private static long lastSeq(RelayFixture fx) throws Exception {
        try (Connection c = fx.jdbc(); ResultSet r = c.createStatement().executeQuery(
                "SELECT coalesce(max(seq), 0) FROM outbox_message")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** Durable counts while the topic is refused. */
    private record Snapshot(long live, long retryOrDead, long givenBackWithAttempts, long deliveredAfter) {
        static Snapshot take(RelayFixture fx, String topic, long lastSeqAtOneReplica) throws Exception {
            try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement("""
                    SELECT count(*) FILTER (WHERE status IN ('PENDING', 'RETRY_SCHEDULED')),
                           count(*) FILTER (WHERE status IN ('RETRY_SCHEDULED', 'DEAD_LETTERED')),
                           count(*) FILTER (WHERE status = 'PENDING' AND attempts > 0 AND lease_until IS NULL),
                           count(*) FILTER (WHERE status = 'DELIVERED' AND seq > ?)
                      FROM outbox_message WHERE topic = ?""")) {
                s.setLong(1, lastSeqAtOneReplica);
                s.setString(2, topic);
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    return new Snapshot(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4));
                }
            }
        }
    }

    /** What reached the topic: every record's message id, and each key's ids in the order first seen. */
    private record Delivered(int records, long duplicates, LinkedHashSet<String> ids,
            Map<String, List<String>> firstByKey) {
        static Delivered read(RelayFixture fx, List<String> topics) {
            List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
            topics.forEach(topic -> records.addAll(RelayCompetingIT.consumeAll(fx, topic)));
            LinkedHashSet<String> ids = new LinkedHashSet<>();
            Map<String, List<String>> firstByKey = new TreeMap<>();
            for (ConsumerRecord<String, byte[]> r : records) { // one partition per topic: offset order
                String id = RelayCompetingIT.header(r, "message-id");
                if (ids.add(id)) {
                    firstByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(id);
                }
            }
            return new Delivered(records.size(), records.size() - ids.size(), ids, firstByKey);
        }
    }

    /**
     * An application writing rows the whole time: 10 rows every 100 ms on one connection, keys in turn, each insert
     * its own transaction, so the relay is always mid-drain. Stops on close; its ids stay readable after.
     */
    private static final class RowWriter implements AutoCloseable {
        private final Connection connection;
        private final PreparedStatement insert;
        private final List<String> topics;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        private final List<UUID> ids = new CopyOnWriteArrayList<>();
        private final Map<String, List<String>> byKey = new HashMap<>();
        private volatile Exception failure;

        private RowWriter(Connection connection, List<String> topics) throws Exception {
            this.connection = connection;
            this.topics = topics;
            this.insert = connection.prepareStatement("""
                    INSERT INTO outbox_message (id, topic, message_key, event_type, payload)
                    VALUES (?, ?, ?, 'TestEvent', ?)""");
        }

        static RowWriter start(RelayFixture fx, List<String> topics) throws Exception {
            RowWriter writer = new RowWriter(fx.jdbc(), topics);
            writer.timer.scheduleAtFixedRate(writer::writeBatch, 0, 100, TimeUnit.MILLISECONDS);
            return writer;
        }

        private void writeBatch() {
            try {
                for (int i = 0; i < 10; i++) {
                    int n = ids.size();
                    UUID id = UUID.randomUUID();
                    String key = "key-" + (n % KEYS);
                    insert.setObject(1, id);
                    insert.setString(2, topics.get(n % topics.size()));
                    insert.setString(3, key);
                    insert.setBytes(4, ("{\"n\":" + n + "}").getBytes());
                    insert.executeUpdate();
                    ids.add(id);
                    synchronized (byKey) {
                        byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(id.toString());
                    }
                }
            } catch (Exception e) {
                failure = e;
                throw new IllegalStateException(e);
            }
        }

        List<UUID> ids() {
            return List.copyOf(ids);
        }

        Map<String, List<String>> byKey() {
            synchronized (byKey) {
                return new TreeMap<>(byKey);
            }
        }

        @Override
        public void close() throws Exception {
            timer.shutdown();
            assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            insert.close();
            connection.close();
            assertThat(failure).as("the writer's inserts").isNull();
        }
    }
}
