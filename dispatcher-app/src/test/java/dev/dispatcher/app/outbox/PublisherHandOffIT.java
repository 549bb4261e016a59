package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
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
 * {@link RecordPublisher#publishAll} on the real producer, with the broker's topic auto-creation off: several lanes
 * in one hand-off are each published in order with one result per record; a missing topic is looked up off the
 * send thread and its records are refused without a send, so the other lanes of the same hand-off go at once; a
 * topic deleted after use holds one hand-off for at most about {@code max.block.ms}, then is looked up again and
 * refused as missing; an unreachable cluster blocks no send at all.
 */
class PublisherHandOffIT {

    /** Far above what a hand-off takes when no send waits for metadata, far below a wait for this bound. */
    private static final int MAX_BLOCK_MS = 20_000;

    @Test
    void lanesHandedOffTogetherArePublishedEachInItsOrder() throws Exception {
        try (RelayFixture fx = new RelayFixture("handoff")) {
            String topic = "handoff." + UUID.randomUUID();
            fx.kafka.createTopic(topic, 1);
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(), Map.of());
            List<RecordPublisher.Lane> lanes = List.of(lane(topic, "a", 5, true), lane(topic, "b", 5, true),
                    lane(topic, null, 5, false));

            List<List<PublishResult>> results = publisher.publishAll(lanes, RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(30));

            assertThat(results).hasSize(3).allSatisfy(lane ->
                    assertThat(lane).hasSize(5).containsOnly(PublishResult.SENT));
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
    void aMissingTopicIsRefusedWithoutASendWhileTheOtherLanesOfTheHandOffArePublished() throws Exception {
        try (RelayFixture fx = new RelayFixture("handoff-missing")) {
            String topic = "handoff-ok." + UUID.randomUUID();
            String missing = "handoff-missing." + UUID.randomUUID();
            fx.kafka.createTopic(topic, 1);
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(),
                    Map.of("max.block.ms", MAX_BLOCK_MS));
            List<RecordPublisher.Lane> lanes = List.of(lane(missing, "a", 3, true), lane(topic, "b", 3, true),
                    lane(missing, null, 2, false), lane(topic, null, 3, false));

            long start = System.nanoTime();
            List<List<PublishResult>> results = publisher.publishAll(lanes, RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(60));
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).as("no send waited max.block.ms for the missing topic's metadata")
                    .isLessThan(Duration.ofMillis(MAX_BLOCK_MS / 2));
            assertThat(results.get(1)).containsOnly(PublishResult.SENT);
            assertThat(results.get(3)).containsOnly(PublishResult.SENT);
            assertThat(results.get(0).getFirst()).isEqualTo(new PublishResult.Failed(unknown(missing)));
            assertThat(results.get(0).subList(1, 3)).as("nothing of the key's run overtakes its refused head")
                    .allMatch(r -> r instanceof PublishResult.NotSent);
            assertThat(results.get(2)).containsOnly(new PublishResult.Failed(unknown(missing)));
            assertThat(fx.kafka.consume(topic, 6, Duration.ofSeconds(10))).hasSize(6);
            assertThat(publisher.checkTopic(missing).block(Duration.ofSeconds(30))).contains(unknown(missing));
            assertThat(publisher.checkTopic(topic).block(Duration.ofSeconds(30))).isEmpty();
        }
    }

    @Test
    void aTopicDeletedAfterUseHoldsItsHandOffAtMostMaxBlockOnceThenIsLookedUpAgainAndRefusedAsMissing()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("handoff-deleted")) {
            String topic = "handoff-deleted." + UUID.randomUUID();
            String other = "handoff-other." + UUID.randomUUID();
            fx.kafka.createTopic(topic, 1);
            fx.kafka.createTopic(other, 1);
            int maxBlockMs = 1_500;
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(), Map.of("max.block.ms", maxBlockMs));
            assertThat(publisher.publishAll(List.of(lane(topic, "a", 1, true)), RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(30))).containsExactly(List.of(PublishResult.SENT));
            fx.kafka.deleteTopics(List.of(topic));
            awaitGone(fx, topic);

            long start = System.nanoTime();
            List<List<PublishResult>> first = handOff(publisher, topic, other);
            Duration firstTook = Duration.ofNanos(System.nanoTime() - start);
            start = System.nanoTime();
            List<List<PublishResult>> second = handOff(publisher, topic, other);
            Duration secondTook = Duration.ofNanos(System.nanoTime() - start);
            PublishResult missing = new PublishResult.Failed(unknown(topic));
            List<List<PublishResult>> third = await("the topic looked up again once the cached refusal expired")
                    .atMost(Duration.ofSeconds(20)).pollDelay(Duration.ofMillis(1_100))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> handOff(publisher, topic, other),
                            handOff -> handOff.get(0).stream().allMatch(missing::equals));

            assertThat(first.get(0)).as("unacknowledged, or refused by a send's metadata wait")
                    .allSatisfy(r -> assertThat(r).isInstanceOfSatisfying(PublishResult.Failed.class,
                            f -> assertThat(f.failure().topicUnavailable()).isTrue()));
            assertThat(firstTook).as("held at most about max.block.ms").isLessThan(Duration.ofMillis(3L * maxBlockMs));
            assertThat(second.get(0)).allSatisfy(r -> assertThat(r).isInstanceOf(PublishResult.Failed.class));
            assertThat(secondTook).as("refused from the cache, no send waited").isLessThan(Duration.ofMillis(maxBlockMs));
            assertThat(third.get(0)).as("looked up again off the send thread: missing")
                    .containsOnly(new PublishResult.Failed(unknown(topic)));
            for (List<List<PublishResult>> handOff : List.of(first, second, third)) {
                assertThat(handOff.get(1)).containsExactly(PublishResult.SENT);
            }
        }
    }

    private static List<List<PublishResult>> handOff(RecordPublisher publisher, String failing, String healthy) {
        return publisher.publishAll(List.of(lane(failing, "a", 2, false), lane(healthy, "b", 1, true)),
                RecordPublisher.Pace.PROMPT).block(Duration.ofSeconds(60));
    }

    @Test
    void anUnreachableClusterBlocksNoSendAndReportsEveryTopicTimingOut() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (RelayFixture fx = new RelayFixture("handoff-down")) {
            RecordPublisher publisher = fx.publisher("127.0.0.1:" + closedPort, Map.of("max.block.ms", 300));
            String topic = "handoff-down." + UUID.randomUUID();
            List<RecordPublisher.Lane> lanes = List.of(lane(topic, "a", 2, true), lane(topic, "b", 2, true),
                    lane(topic, null, 2, false));

            List<List<PublishResult>> results = publisher.publishAll(lanes, RecordPublisher.Pace.PROMPT)
                    .block(Duration.ofSeconds(30));

            assertThat(results).hasSize(3);
            for (List<PublishResult> lane : results) {
                assertThat(lane.getFirst()).isInstanceOfSatisfying(PublishResult.Failed.class, f -> {
                    assertThat(f.failure().kind()).isEqualTo(FailureKind.UNAVAILABLE);
                    assertThat(f.failure().scope()).isEqualTo(SendFailure.Scope.TOPIC);
                    assertThat(f.failure().cause()).isEqualTo(PublishFailureCause.TIMEOUT);
                });
            }
            assertThat(results.get(0).get(1)).isInstanceOf(PublishResult.NotSent.class);
            assertThat(publisher.probe(Duration.ofMillis(300)).block(Duration.ofSeconds(10))).isFalse();
        }
    }

    private static SendFailure unknown(String topic) {
        return new SendFailure(FailureKind.UNAVAILABLE, SendFailure.Scope.TOPIC, PublishFailureCause.UNKNOWN_TOPIC,
                "topic '" + topic + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION)");
    }

    /** Waits (the test thread) until the broker no longer lists {@code topic}. */
    private static void awaitGone(RelayFixture fx, String topic) {
        RecordPublisher probe = fx.publisher(fx.kafka.bootstrapServers(), Map.of());
        // each check past the previous cached answer's lifetime
        await("topic %s no longer listed".formatted(topic)).atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1_100))
                .until(() -> probe.checkTopic(topic).block(Duration.ofSeconds(30)).isPresent());
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
