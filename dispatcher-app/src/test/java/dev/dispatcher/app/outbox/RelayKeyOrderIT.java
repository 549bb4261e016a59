package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** Per-key order survives transient failures: a key's messages reach its partition in {@code seq} order. */
class RelayKeyOrderIT {

    @Test
    void eachKeysMessagesReachKafkaInSeqOrderDespiteInjectedTransientFailures() throws Exception {
        try (RelayFixture fx = new RelayFixture("keyorder")) {
            String topic = "keyorder-" + fx.schema;
            fx.kafka.createTopic(topic, 4);
            int n = 2000;
            int keys = 20;
            List<UUID> ids = fx.seed(topic, n, i -> "key-" + (i % keys));
            SplittableRandom random = new SplittableRandom(2026);
            Set<String> chosen = ids.stream().map(UUID::toString)
                    .filter(id -> random.nextInt(100) < 5)
                    .collect(Collectors.toSet());
            FlakyPublisher publisher = FlakyPublisher.failing(fx.publisher(), chosen, 1);
            RelaySettings settings = new RelaySettings("keyorder-relay", 100, 4, 64, Duration.ofSeconds(30),
                    Duration.ofMillis(50), Ordering.PER_KEY,
                    RetryPolicy.of(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, Jitter.FULL, 5,
                            new SplittableRandom(11)),
                    Duration.ofSeconds(20));

            fx.relay(settings, publisher, RelayFixture.metrics());

            long start = System.nanoTime();
            List<Long> deliveredPerSecond = new ArrayList<>();
            await("every message delivered, progress sampled each second").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        long delivered = fx.count("status = 'DELIVERED'");
                        deliveredPerSecond.add(delivered);
                        return delivered >= n;
                    });
            System.out.println("DIAG keyorder deliveredIn=" + Duration.ofNanos(System.nanoTime() - start).toMillis()
                    + "ms progress=" + deliveredPerSecond);
            fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(1));
            Map<String, Long> seqById = new HashMap<>();
            Set<String> retried = new HashSet<>();
            try (Connection c = fx.jdbc(); ResultSet rows = c.createStatement().executeQuery(
                    "SELECT id, seq, attempts FROM outbox_message")) {
                while (rows.next()) {
                    seqById.put(rows.getString(1), rows.getLong(2));
                    if (rows.getInt(3) > 1) {
                        retried.add(rows.getString(1));
                    }
                }
            }

            List<ConsumerRecord<String, byte[]>> records = RelayCompetingIT.consumeAll(fx, topic);
            Map<String, Set<Integer>> partitionsByKey = new TreeMap<>();
            Map<String, List<ConsumerRecord<String, byte[]>>> byKey = new TreeMap<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                partitionsByKey.computeIfAbsent(r.key(), k -> new HashSet<>()).add(r.partition());
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
            }
            Map<String, Integer> seen = new HashMap<>();
            records.forEach(r -> seen.merge(RelayCompetingIT.header(r, "message-id"), 1, Integer::sum));
            List<String> outOfOrder = new ArrayList<>();
            for (Map.Entry<String, List<ConsumerRecord<String, byte[]>>> e : byKey.entrySet()) {
                List<ConsumerRecord<String, byte[]>> keyRecords = new ArrayList<>(e.getValue());
                keyRecords.sort(Comparator.comparingLong(ConsumerRecord::offset));
                LinkedHashSet<String> firstOccurrences = new LinkedHashSet<>();
                keyRecords.forEach(r -> firstOccurrences.add(RelayCompetingIT.header(r, "message-id")));
                long previous = Long.MIN_VALUE;
                for (String id : firstOccurrences) {
                    long seq = seqById.get(id);
                    if (seq <= previous) {
                        outOfOrder.add(e.getKey() + ": seq " + seq + " after " + previous);
                    }
                    previous = seq;
                }
            }
            System.out.println("DIAG keyorder records=" + records.size() + " distinct=" + seen.size()
                    + " duplicateIds=" + seen.values().stream().filter(c -> c > 1).count() + " chosen="
                    + chosen.size() + " injected=" + publisher.injectedIds().size() + " retriedRows="
                    + retried.size() + " outOfOrder=" + outOfOrder.size());

            assertThat(seen.keySet()).isEqualTo(RelayCompetingIT.strings(ids));
            assertThat(byKey).hasSize(keys);
            assertThat(partitionsByKey.values()).allMatch(p -> p.size() == 1);
            assertThat(outOfOrder).isEmpty();
            // The failures really happened, once per chosen message, and only they spent a second attempt
            // (the rows released behind a failure got their attempt back).
            assertThat(chosen).hasSizeBetween(50, 150);
            assertThat(publisher.injectedIds()).isEqualTo(chosen);
            assertThat(retried).isEqualTo(chosen);
            assertThat(fx.count("attempts > 2")).isZero();
        }
    }
}
