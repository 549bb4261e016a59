package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Several relays, each with its own pool, worker id and metrics, compete for one outbox table: every message is
 * delivered, reaches Kafka, and is counted as delivered by exactly one relay.
 */
class RelayCompetingIT {

    private static final int RELAYS = 3;

    @Test
    void competingPerKeyRelaysDeliverEveryMessageAndCountEachDeliveryOnce() throws Exception {
        competeAndVerify("compk", Ordering.PER_KEY, 10_000);
    }

    @Test
    void competingUnorderedRelaysDeliverEveryMessageAndCountEachDeliveryOnce() throws Exception {
        competeAndVerify("compn", Ordering.NONE, 10_000);
    }

    private static void competeAndVerify(String prefix, Ordering ordering, int n) throws Exception {
        try (RelayFixture fx = new RelayFixture(prefix)) {
            String topic = prefix + "-" + fx.schema;
            fx.kafka.createTopic(topic, 4);
            List<UUID> ids = fx.seed(topic, n, i -> i % 10 == 0 ? null : "key-" + (i % 97));

            List<DispatcherMetrics> metrics = new ArrayList<>();
            long start = System.nanoTime();
            for (int r = 0; r < RELAYS; r++) {
                DispatcherMetrics m = RelayFixture.metrics();
                metrics.add(m);
                fx.relay(RelayFixture.settings(prefix + "-relay-" + r, ordering), fx.publisher(), m);
            }

            fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(90));
            long deliveredMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();

            List<ConsumerRecord<String, byte[]>> records = consumeAll(fx, topic);
            Map<String, Integer> seen = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                seen.merge(header(r, "message-id"), 1, Integer::sum);
            }
            long duplicateIds = seen.values().stream().filter(c -> c > 1).count();
            long extraRecords = records.size() - seen.size();
            Map<String, Long> byOwner = deliveredByOwner(fx);
            List<Double> applied = metrics.stream()
                    .map(m -> sum(m.registry(), "dispatcher.transition.attempts", "transition", "deliver",
                            "outcome", "applied"))
                    .toList();
            List<Double> published = metrics.stream()
                    .map(m -> sum(m.registry(), "dispatcher.messages", "result", "published"))
                    .toList();
            double notApplied = metrics.stream()
                    .mapToDouble(m -> sum(m.registry(), "dispatcher.messages", "result", "persist_skipped"))
                    .sum();
            double leaseExpirations = metrics.stream()
                    .mapToDouble(m -> sum(m.registry(), "dispatcher.lease.expirations"))
                    .sum();
            System.out.println("DIAG " + prefix + " ordering=" + ordering + " n=" + n + " deliveredIn="
                    + deliveredMillis + "ms kafkaRecords=" + records.size() + " distinct=" + seen.size()
                    + " duplicateIds=" + duplicateIds + " extraRecords=" + extraRecords + " deliveredByOwner="
                    + byOwner + " appliedDeliverPerRelay=" + applied + " publishedPerRelay=" + published
                    + " persistSkipped=" + notApplied + " leaseExpirations=" + leaseExpirations
                    + " attempts>1=" + fx.count("attempts > 1"));

            assertThat(fx.statusCounts()).isEqualTo(Map.of("DELIVERED", (long) n));
            assertThat(fx.count("delivered_at IS NOT NULL AND lease_until IS NULL")).isEqualTo(n);
            assertThat(seen.keySet()).isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
            assertThat(applied.stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(n);
            assertThat(published.stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(n);
            // Each relay's own count matches the rows it finished, so no delivery is counted by two relays.
            for (int r = 0; r < RELAYS; r++) {
                assertThat(published.get(r)).as("relay %d published", r)
                        .isEqualTo(byOwner.getOrDefault(prefix + "-relay-" + r, 0L).doubleValue());
            }
            // No claimed batch was lost: healthy relays never let a lease run out (a lost claim shows up as
            // lease expirations and attempts > 1, and delays its rows by a whole lease).
            assertThat(leaseExpirations).as("lease expirations").isZero();
            assertThat(fx.count("attempts <> 1")).as("rows claimed more than once").isZero();
            // The relays really competed.
            assertThat(byOwner).as("delivered rows by lease owner").hasSizeGreaterThanOrEqualTo(2);
        }
    }

    private static Map<String, Long> deliveredByOwner(RelayFixture fx) throws Exception {
        Map<String, Long> byOwner = new HashMap<>();
        try (Connection c = fx.jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT lease_owner, count(*) FROM outbox_message WHERE status = 'DELIVERED' GROUP BY 1")) {
            while (rows.next()) {
                byOwner.put(rows.getString(1), rows.getLong(2));
            }
        }
        return byOwner;
    }

    private static double sum(MeterRegistry registry, String name, String... tags) {
        return registry.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Every record on {@code topic}: reads up to the end offsets (which count duplicates too). */
    static List<ConsumerRecord<String, byte[]>> consumeAll(RelayFixture fx, String topic) {
        long total = 0;
        Map<String, Object> config = new HashMap<>(fx.kafka.clientProperties());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, Duration.ofSeconds(10));
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
            for (TopicPartition p : partitions) {
                total += end.get(p) - begin.get(p);
            }
        }
        List<ConsumerRecord<String, byte[]>> records = fx.kafka.consume(topic, (int) total, Duration.ofSeconds(30));
        assertThat(records).as("records up to the end offsets of " + topic).hasSize((int) total);
        return records;
    }

    /**
     * Every record consumed from {@code topic}, grouped by key (keys in order), as the {@code seq} of the row each
     * came from, in offset order: what a consumer of one key sees, compared with the order the rows were written in.
     */
    static Map<String, List<Long>> seqsByKey(RelayFixture fx, String topic) throws Exception {
        Map<String, Long> seqById = new HashMap<>();
        try (Connection c = fx.jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT id, seq FROM outbox_message")) {
            while (rows.next()) {
                seqById.put(rows.getString(1), rows.getLong(2));
            }
        }
        Map<String, List<Long>> byKey = new TreeMap<>();
        consumeAll(fx, topic).stream().sorted(Comparator.comparingLong(ConsumerRecord::offset)).forEach(r ->
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(seqById.get(header(r, "message-id"))));
        return byKey;
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    static Set<String> strings(List<UUID> ids) {
        return ids.stream().map(UUID::toString).collect(Collectors.toSet());
    }
}
