package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordPublisher#publishAll} on the real producer: several lanes in one hand-off are each published in
 * order with one result per record; a cluster that cannot be reached ends the whole hand-off after the one send
 * that waited {@code max.block.ms} for it, every other record of every lane not attempted (and so released without
 * spending an attempt).
 */
class PublisherHandOffIT {

    @Test
    void lanesHandedOffTogetherArePublishedEachInItsOrder() throws Exception {
        try (RelayFixture fx = new RelayFixture("handoff")) {
            String topic = "handoff." + UUID.randomUUID();
            fx.kafka.createTopic(topic, 1);
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(), Map.of());
            List<RecordPublisher.Lane> lanes = List.of(lane(topic, "a", 5, true), lane(topic, "b", 5, true),
                    lane(topic, null, 5, false));

            List<List<DispatchResult>> results = publisher.publishAll(lanes, RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(30));

            assertThat(results).hasSize(3).allSatisfy(lane ->
                    assertThat(lane).hasSize(5).containsOnly(DispatchResult.PUBLISHED));
            List<ConsumerRecord<String, byte[]>> onKafka = fx.kafka.consume(topic, 15, Duration.ofSeconds(10));
            assertThat(onKafka).hasSize(15);
            for (String key : List.of("a", "b")) {
                assertThat(onKafka.stream().filter(r -> key.equals(r.key()))
                        .map(r -> new String(r.value(), StandardCharsets.UTF_8)))
                        .as("key %s in its lane's order", key)
                        .containsExactly(IntStream.range(0, 5).mapToObj(i -> key + i).toArray(String[]::new));
            }
        }
    }

    @Test
    void anUnreachableClusterEndsTheWholeHandOffAfterOneBlockedSend() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (RelayFixture fx = new RelayFixture("handoff-down")) {
            RecordPublisher publisher = fx.publisher("127.0.0.1:" + closedPort, Map.of("max.block.ms", 300));
            String topic = "handoff-down." + UUID.randomUUID();
            List<RecordPublisher.Lane> lanes = List.of(lane(topic, "a", 2, true), lane(topic, "b", 2, true),
                    lane(topic, null, 2, false));

            List<List<DispatchResult>> results = publisher.publishAll(lanes, RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(30));

            assertThat(results).hasSize(3);
            assertThat(results.getFirst().getFirst()).isInstanceOfSatisfying(DispatchResult.Failed.class,
                    f -> assertThat(f.kind()).isEqualTo(FailureKind.UNAVAILABLE));
            List<DispatchResult> rest = new ArrayList<>(results.getFirst().subList(1, 2));
            results.subList(1, 3).forEach(rest::addAll);
            assertThat(rest).as("never handed off, in this lane or the others").hasSize(5)
                    .allMatch(r -> r instanceof DispatchResult.NotAttempted);
        }
    }

    private static RecordPublisher.Lane lane(String topic, String key, int n, boolean ordered) {
        List<OutboundRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(new OutboundRecord(topic, key, ((key == null ? "none" : key) + i)
                    .getBytes(StandardCharsets.UTF_8), Map.of("message-id", UUID.randomUUID().toString())));
        }
        return new RecordPublisher.Lane(records, ordered);
    }
}
