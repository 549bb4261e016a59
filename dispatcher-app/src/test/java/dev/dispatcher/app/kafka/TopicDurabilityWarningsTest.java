package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The decision (warn or not) and when a topic is checked: once, on first publish, without holding the records. */
class TopicDurabilityWarningsTest {

    private final ManualClock clock = new ManualClock();
    private final List<String> checked = new ArrayList<>();
    private final List<String> warned = new ArrayList<>();
    /** The cluster's answers: min.insync.replicas by topic on a 3-broker cluster; a topic absent here fails. */
    private final Map<String, Integer> minInsync = new HashMap<>(Map.of("orders", 1, "payments", 2));
    private final List<List<OutboundRecord>> sent = new ArrayList<>();
    private boolean closed;

    private final TopicDurabilityWarnings publisher = new TopicDurabilityWarnings(new RecordPublisher() {
        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            sent.add(records);
            return Mono.just(records.stream().map(r -> PublishResult.SENT).toList());
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return Mono.just(true);
        }

        @Override
        public void close() {
        }
    }, topic -> Mono.defer(() -> {
        checked.add(topic);
        Integer min = minInsync.get(topic);
        return min == null ? Mono.error(new IllegalStateException("unknown topic " + topic))
                : Mono.just(new TopicDurability(topic, 3, min));
    }), durability -> warned.add(durability.topic()), () -> closed = true, clock, 3);

    private static OutboundRecord record(String topic) {
        return new OutboundRecord(topic, null, new byte[0], Map.of());
    }

    private void publish(String... topics) {
        List<OutboundRecord> records = java.util.Arrays.stream(topics).map(TopicDurabilityWarningsTest::record)
                .toList();
        assertThat(publisher.publishAll(List.of(new RecordPublisher.Lane(records, false)), RecordPublisher.Pace.PROMPT)
                .block(Duration.ofSeconds(5))).singleElement().asList().hasSize(topics.length);
    }

    @Test
    void aTopicIsWeakOnlyWhenTheClusterCouldDoBetter() {
        assertThat(new TopicDurability("t", 3, 1).weak()).isTrue();
        assertThat(new TopicDurability("t", 5, 1).weak()).isTrue();
        assertThat(new TopicDurability("t", 3, 2).weak()).isFalse();
        assertThat(new TopicDurability("t", 2, 1).weak()).as("two brokers cannot keep two replicas through a loss")
                .isFalse();
        assertThat(new TopicDurability("t", 1, 1).weak()).isFalse();
        assertThat(new TopicDurability("orders", 3, 1).warning()).startsWith("topic orders has min.insync.replicas=1"
                + " on a cluster of 3 brokers").contains("acks=all").contains("min.insync.replicas to 2");
    }

    @Test
    void eachTopicIsCheckedOnceWhenFirstPublishedAndOnlyAWeakOneIsWarnedAbout() {
        publish("orders", "orders", "payments", "orders");
        publish("payments", "orders");

        assertThat(checked).containsExactly("orders", "payments");
        assertThat(warned).containsExactly("orders");
        assertThat(sent).hasSize(2).allSatisfy(records -> assertThat(records).isNotEmpty());
    }

    @Test
    void aFailedCheckIsTriedAgainOnlyAfterAWhile() {
        publish("refunds");
        publish("refunds");
        assertThat(checked).containsExactly("refunds");

        minInsync.put("refunds", 1);
        clock.advance(TopicDurabilityWarnings.RETRY_AFTER);
        publish("refunds");
        publish("refunds");
        assertThat(checked).containsExactly("refunds", "refunds");
        assertThat(warned).containsExactly("refunds");
    }

    @Test
    void topicsBeyondTheBoundAreNotRememberedOrChecked() {
        publish("orders", "payments", "a", "b", "c");

        assertThat(publisher.remembered()).isEqualTo(3);
        assertThat(Set.copyOf(checked)).hasSize(3);
    }

    @Test
    void closingClosesTheCheck() {
        publisher.close();
        assertThat(closed).isTrue();
    }
}
