package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.InboxOperatorStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.testkit.TestServers;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An inbox consumer's {@code dead-letter-topic}: a message the handler gives up on is published there (its value, key
 * and headers, with the reason, attempts and source topic) and its row turns {@code DEAD_LETTERED} only once the
 * topic acknowledged it; when the dead-letter topic does not take it (it refuses the record, or does not exist on a
 * broker that does not create topics), the row is dead-lettered in the table alone and the failure is counted; on a
 * broker that creates topics on first use, a dead-letter topic that does not exist yet is created and gets it. The
 * row replays from the table as before.
 * Real broker topics, durable state read through fresh connections.
 */
class InboxDeadLetterTopicIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Dead-lettered after two failed attempts, 20 ms apart. */
    private static InboxSettings settings(String workerId, String deadLetterTopic) {
        return new InboxSettings("billing", workerId, 16, 4, 2, Duration.ofSeconds(30), Duration.ofMillis(100),
                Duration.ofMillis(5), RetryPolicy.of(Duration.ofMillis(20), Duration.ofMillis(20), 2.0, Jitter.NONE,
                        2, new SplittableRandom(7)),
                10_000, Duration.ofSeconds(30), Duration.ofSeconds(10), InboxFixture.MAX_PAYLOAD_BYTES)
                .withDeadLetterTopic(DeadLetterTopic.of(deadLetterTopic).orElseThrow());
    }

    /** The service's publisher, with a short wait for a topic's metadata. */
    private static RecordPublisher publisher(InboxFixture fx) {
        Map<String, Object> props = new HashMap<>(fx.kafka.clientProperties());
        props.put("max.block.ms", 2000);
        return Publishers.kafka(Publishers.withDefaults(props), Map.of());
    }

    /** Fails while {@code failing} is above zero, counting down. */
    private static InboxHandler failing(AtomicInteger failing) {
        return InboxFixture.effectHandler((m, c) -> failing.getAndDecrement() > 0
                ? Mono.error(new IllegalStateException("ledger rejects " + m.id()))
                : Mono.empty());
    }

    @Test
    void aMessageTheHandlerGivesUpOnIsOnTheDeadLetterTopicBeforeItsRowIsDeadLetteredAndReplaysAsBefore()
            throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_dlt")) {
            String topic = fx.topic("payments", 1);
            fx.kafka.createTopic(topic + ".DLT", 1);
            Sinks.Empty<Void> acknowledge = Sinks.empty();
            AtomicInteger publishes = new AtomicInteger();
            RecordPublisher real = publisher(fx);
            RecordPublisher held = new HeldPublisher(real, acknowledge, publishes);
            DispatcherMetrics metrics = InboxFixture.metrics();
            AtomicInteger failures = new AtomicInteger(2);
            fx.consumer(fx.receiver(topic, "dlt-group"), failing(failures), settings("dlt-a", "{topic}.DLT"), metrics,
                    held);
            fx.sendRaw(topic, 0, "acct-7".getBytes(StandardCharsets.UTF_8), "{\"amount\":5}".getBytes(
                    StandardCharsets.UTF_8), "message-id", "pay-1", "event-type", "Charged", "x-tenant", "acme");

            InboxFixture.await("the dead letter handed to its topic", () -> publishes.get() == 1, WAIT);
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE message_id = 'pay-1'"
                    + " AND status <> 'DEAD_LETTERED' AND attempts = 2"))
                    .as("not dead-lettered while the topic has not acknowledged").isEqualTo(1);
            acknowledge.tryEmitEmpty();
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'pay-1' AND status = 'DEAD_LETTERED'"
                    + " AND last_error LIKE 'gave up after 2 attempts: %ledger rejects pay-1%'", 1, WAIT);

            List<ConsumerRecord<String, byte[]>> dead = fx.kafka.consume(topic + ".DLT", 1, WAIT);
            assertThat(dead).hasSize(1);
            ConsumerRecord<String, byte[]> r = dead.getFirst();
            assertThat(r.key()).isEqualTo("acct-7");
            assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"amount\":5}");
            assertThat(headers(r)).containsEntry("message-id", "pay-1").containsEntry("event-type", "Charged")
                    .containsEntry("x-tenant", "acme").containsEntry("dispatcher-attempts", "2")
                    .containsEntry("dispatcher-original-topic", topic)
                    .hasEntrySatisfying("dispatcher-dead-letter-reason", reason -> assertThat(reason)
                            .startsWith("gave up after 2 attempts: ").contains("ledger rejects pay-1"));
            assertThat(failureCount(metrics, topic + ".DLT")).isZero();

            // replay from the table, as before: handled this time, once
            long version = fx.count("SELECT version FROM inbox_message WHERE message_id = 'pay-1'");
            InboxOperatorStore operators = InboxOperatorStore.r2dbc(fx.pool("dlt-operator", 2),
                    Duration.ofSeconds(5));
            operators.replay("billing", "pay-1", version, "operator").block(WAIT);
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'pay-1' AND status = 'COMPLETED'", 1,
                    WAIT);
            assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = 'pay-1'")).isEqualTo(1);
            assertThat(fx.kafka.consume(topic + ".DLT", 2, Duration.ofSeconds(2))).as("published once").hasSize(1);
        }
    }

    @Test
    void aDeadLetterTopicThatRefusesTheRecordLeavesTheRowDeadLetteredInTheTableAloneAndIsCounted() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_dlt_refused")) {
            String topic = fx.topic("refunds", 1);
            String deadLetters = topic + ".DLT";
            fx.kafka.createTopic(deadLetters, 1);
            maxMessageBytes(fx, deadLetters, 64);
            DispatcherMetrics metrics = InboxFixture.metrics();
            RecordPublisher publisher = publisher(fx);
            fx.consumer(fx.receiver(topic, "refused-group"), failing(new AtomicInteger(Integer.MAX_VALUE)),
                    settings("dlt-b", "{topic}.DLT"), metrics, publisher);
            fx.sendRaw(topic, 0, "acct-8".getBytes(StandardCharsets.UTF_8),
                    ("{\"note\":\"" + "x".repeat(200) + "\"}").getBytes(StandardCharsets.UTF_8), "message-id", "ref-1");

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'ref-1' AND status = 'DEAD_LETTERED'",
                    1, WAIT);
            InboxFixture.await("the failure counted", () -> failureCount(metrics, deadLetters) == 1, WAIT);
            assertThat(fx.kafka.consume(deadLetters, 1, Duration.ofSeconds(2))).isEmpty();
        }
    }

    @Test
    void aMissingDeadLetterTopicLeavesTheRowDeadLetteredInTheTableAloneAndIsCounted() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_dlt_missing")) {
            assumeFalse(autoCreatesTopics(fx), "the shared broker creates missing topics on first use");
            String topic = fx.topic("invoices", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();

            deadLetterOne(fx, topic, ".missing-DLT", metrics, "inv-1");

            assertThat(failureCount(metrics, topic + ".missing-DLT")).isEqualTo(1);
        }
    }

    @Test
    void onABrokerThatCreatesTopicsAMissingDeadLetterTopicIsCreatedAndGetsTheDeadLetter() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_dlt_created", TestServers.kafkaCreatingTopics())) {
            String topic = fx.topic("credits", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();

            deadLetterOne(fx, topic, ".new-DLT", metrics, "cre-1");

            assertThat(fx.kafka.consume(topic + ".new-DLT", 1, WAIT)).singleElement()
                    .satisfies(letter -> assertThat(headers(letter)).containsEntry("message-id", "cre-1")
                            .containsEntry("dispatcher-original-topic", topic));
            assertThat(failureCount(metrics, topic + ".new-DLT")).isZero();
        }
    }

    /**
     * Sends one record of {@code topic} to a consumer whose handler always fails and whose dead-letter topic is
     * {@code {topic}<suffix>}, and waits until its row is dead-lettered.
     */
    private static void deadLetterOne(InboxFixture fx, String topic, String suffix, DispatcherMetrics metrics,
            String messageId) throws Exception {
        fx.consumer(fx.receiver(topic, messageId + "-group"), failing(new AtomicInteger(Integer.MAX_VALUE)),
                settings(messageId + "-worker", "{topic}" + suffix), metrics, publisher(fx));
        fx.sendRaw(topic, 0, "acct".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8),
                "message-id", messageId);
        fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = '" + messageId
                + "' AND status = 'DEAD_LETTERED'", 1, WAIT);
    }

    /** Passes on results only once {@code acknowledge} completes; counts publishes. */
    private record HeldPublisher(RecordPublisher delegate, Sinks.Empty<Void> acknowledge, AtomicInteger publishes)
            implements RecordPublisher {

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return delegate.publish(records, ordered, pace)
                    .doOnNext(r -> publishes.incrementAndGet())
                    .delayUntil(r -> acknowledge.asMono());
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return delegate.probe(timeout);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private static double failureCount(DispatcherMetrics metrics, String deadLetterTopic) {
        double c = metrics.registry().find("dispatcher.publish.failures").tag("topic", deadLetterTopic)
                .counters().stream().mapToDouble(Counter::count).sum();
        return c;
    }

    private static Map<String, String> headers(ConsumerRecord<String, byte[]> r) {
        Map<String, String> headers = new HashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static void maxMessageBytes(InboxFixture fx, String topic, int bytes) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", fx.kafka.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                    List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                            Integer.toString(bytes)), AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static boolean autoCreatesTopics(InboxFixture fx) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", fx.kafka.bootstrapServers()))) {
            String broker = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().idString();
            ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker);
            return Boolean.parseBoolean(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource).get("auto.create.topics.enable").value());
        }
    }
}
