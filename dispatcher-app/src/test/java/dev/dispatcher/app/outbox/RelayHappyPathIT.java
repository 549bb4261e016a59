package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** Happy path: N messages arrive once each with every header, and every row ends DELIVERED. */
class RelayHappyPathIT {

    @Test
    void everyMessageArrivesOnceWithAllHeadersAndEndsDelivered() throws Exception {
        try (RelayFixture fx = new RelayFixture("happy")) {
            String topic = "happy-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            int n = 1000;
            List<UUID> ids = fx.seed(topic, n, i -> i % 10 == 0 ? null : "key-" + (i % 7));
            DispatcherMetrics metrics = RelayFixture.metrics();

            fx.relay(RelayFixture.settings("happy-relay", Ordering.PER_KEY), fx.publisher(), metrics);

            fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(60));
            List<ConsumerRecord<String, byte[]>> records = fx.kafka.consume(topic, n, Duration.ofSeconds(30));
            Map<String, Integer> seen = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                seen.merge(header(r, "message-id"), 1, Integer::sum);
            }
            System.out.println("DIAG records=" + records.size() + " distinct=" + seen.size() + " dups="
                    + seen.values().stream().filter(c -> c > 1).count() + " attempts>1=" + fx.count("attempts > 1")
                    + " partitions=" + records.stream().map(r -> r.partition() + ":" + r.offset()).distinct().count());
            assertThat(records).hasSize(n);
            assertThat(seen.keySet()).isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
            assertThat(seen.values()).allMatch(count -> count == 1);

            ConsumerRecord<String, byte[]> any = records.stream()
                    .filter(r -> r.key() != null).findFirst().orElseThrow();
            Set<String> headerNames = new java.util.HashSet<>();
            any.headers().forEach(h -> headerNames.add(h.key()));
            assertThat(headerNames).contains("message-id", "event-type", "correlation-id", "causation-id",
                    "content-type", "traceparent", "tenant");
            assertThat(header(any, "event-type")).isEqualTo("TestEvent");
            assertThat(header(any, "content-type")).isEqualTo("application/json");
            assertThat(header(any, "traceparent")).startsWith("00-0af7651916cd43dd8448eb211c80319c");
            assertThat(fx.count("status = 'DELIVERED' AND delivered_at IS NOT NULL AND lease_until IS NULL"))
                    .isEqualTo(n);
            assertThat(metrics.registry().get("dispatcher.messages").tag("queue", "outbox")
                    .tag("result", "published").counter().count()).isEqualTo(n);
            assertThat(metrics.registry().get("dispatcher.transition.attempts").tag("transition", "deliver")
                    .tag("outcome", "applied").tag("durable_status", "delivered").counter().count()).isEqualTo(n);
        }
    }

    private static String header(ConsumerRecord<String, byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
