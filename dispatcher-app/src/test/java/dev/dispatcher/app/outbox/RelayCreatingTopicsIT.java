package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.testkit.TestServers;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * On a broker that creates topics on first use ({@code auto.create.topics.enable=true}, Kafka's default: the kit's
 * second shared broker), a topic that does not exist is created by the producer's own metadata request, as for any
 * producer, and its rows are delivered: every row, once, on its first attempt, each key in order, with no failure
 * counted (a topic being created is a wait), while an existing topic's rows flow beside them; a dead-letter topic
 * that does not exist yet is created and gets its dead letter; a topic being created holds no other lane of its
 * hand-off. {@code RelayTopicFaultsIT} keeps the other case: on a
 * broker that does not create topics, a missing topic's rows are held and dead-lettered after the timeout.
 */
class RelayCreatingTopicsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aNewTopicIsCreatedByItsFirstRecordsAndEveryRowIsDeliveredOnceInKeyOrderWithNoFailureCounted()
            throws Exception {
        try (RelayFixture fx = new RelayFixture("creating", TestServers.kafkaCreatingTopics())) {
            String fresh = "fresh-" + fx.schema;
            String existing = "existing-" + fx.schema;
            fx.kafka.createTopic(existing, 3);
            List<UUID> rows = fx.seed(fresh, 2_000, i -> "key-" + (i % 64));
            List<UUID> others = fx.seed(existing, 300, i -> "other-" + (i % 10));
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(RelayFixture.settings("creating-relay", Ordering.PER_KEY), fx.publisher(), metrics);

            await("every row of both topics delivered").atMost(WAIT)
                    .until(() -> fx.count("status = 'DELIVERED'") == rows.size() + others.size());

            assertThat(fx.count("attempts <> 1")).as("no attempt spent while the topic was being created").isZero();
            List<ConsumerRecord<String, byte[]>> records = RelayCompetingIT.consumeAll(fx, fresh);
            assertThat(records.stream().map(r -> RelayCompetingIT.header(r, "message-id")))
                    .as("every row on the created topic, once").hasSize(rows.size())
                    .containsExactlyInAnyOrderElementsOf(RelayCompetingIT.strings(rows));
            assertThat(records.stream().map(ConsumerRecord::partition).collect(Collectors.toSet()))
                    .as("the broker's own num.partitions").hasSize(3);
            Map<String, List<Integer>> byKey = new HashMap<>();
            records.forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(number(r)));
            byKey.forEach((key, numbers) -> assertThat(numbers).as("key %s in order", key).isSorted());
            assertThat(RelayCompetingIT.consumeAll(fx, existing)).hasSize(others.size());
            assertThat(failures(metrics, fresh)).as("a topic being created is a wait, not a failure").isZero();
        }
    }

    @Test
    void aDeadLetterTopicThatDoesNotExistYetIsCreatedAndGetsTheFirstDeadLetter() throws Exception {
        try (RelayFixture fx = new RelayFixture("creating_dlt", TestServers.kafkaCreatingTopics())) {
            String strict = "strict-" + fx.schema;
            fx.kafka.createTopic(strict, 1, Map.of("max.message.bytes", "2000"));
            UUID tooLarge = RelayPoisonAndRetryIT.insert(fx, strict, "s-key", new byte[20_000]);
            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(RelayFixture.settings("creating-dlt-relay", Ordering.PER_KEY)
                    .withDeadLetterTopic(new DeadLetterTopic("{topic}.DLT")), fx.publisher(), metrics);

            await("the row dead-lettered").atMost(WAIT)
                    .until(() -> fx.count("status = 'DEAD_LETTERED' AND id = '" + tooLarge + "'") == 1);

            List<ConsumerRecord<String, byte[]>> letters = fx.kafka.consume(strict + ".DLT", 1, WAIT);
            assertThat(letters).singleElement().satisfies(letter -> {
                assertThat(RelayCompetingIT.header(letter, "message-id")).isEqualTo(tooLarge.toString());
                assertThat(RelayCompetingIT.header(letter, "dispatcher-original-topic")).isEqualTo(strict);
                assertThat(letter.value()).hasSize(20_000);
            });
            assertThat(failures(metrics, strict + ".DLT")).as("the dead-letter topic took it").isZero();
        }
    }

    @Test
    void aTopicBeingCreatedWaitsWithoutASendWhileTheOtherLanesGoAndTakesRecordsOnceCreated() throws Exception {
        try (RelayFixture fx = new RelayFixture("creating_handoff", TestServers.kafkaCreatingTopics())) {
            String existing = "handoff-existing." + UUID.randomUUID();
            String fresh = "handoff-fresh." + UUID.randomUUID();
            fx.kafka.createTopic(existing, 1);
            RecordPublisher publisher = fx.publisher(fx.kafka.bootstrapServers(), Map.of("max.block.ms", 20_000));

            List<List<PublishResult>> first = publisher.publishAll(List.of(lane(fresh, "a"), lane(existing, "b")),
                    RecordPublisher.Pace.PROMPT).block(WAIT);
            publisher.awaitCreated(Set.of(fresh)).block(WAIT);
            List<List<PublishResult>> second = publisher.publishAll(List.of(lane(fresh, "a")),
                    RecordPublisher.Pace.PROMPT).block(WAIT);

            assertThat(first.get(1)).as("the existing topic's lane went at once").containsOnly(PublishResult.SENT);
            assertThat(first.get(0)).as("a wait, not a failure").containsExactly(new PublishResult.NotYet("topic '"
                    + fresh + "' does not exist (UNKNOWN_TOPIC_OR_PARTITION); the brokers create topics on first use"
                    + " and it is being created"));
            assertThat(second).containsExactly(List.of(PublishResult.SENT));
            assertThat(fx.kafka.consume(fresh, 1, WAIT)).hasSize(1);
        }
    }

    private static RecordPublisher.Lane lane(String topic, String key) {
        return new RecordPublisher.Lane(List.of(new OutboundRecord(topic, key,
                key.getBytes(StandardCharsets.UTF_8), Map.of("message-id", UUID.randomUUID().toString()))), true);
    }

    /** The {@code n} of a seeded row's payload, {@code {"n":<n>}}. */
    private static int number(ConsumerRecord<String, byte[]> record) {
        String json = new String(record.value(), StandardCharsets.UTF_8);
        return Integer.parseInt(json.substring(json.indexOf(':') + 1, json.indexOf('}')));
    }

    private static double failures(DispatcherMetrics metrics, String topic) {
        return metrics.registry().find("dispatcher.publish.failures").tag("topic", topic).counters().stream()
                .mapToDouble(Counter::count).sum();
    }
}
