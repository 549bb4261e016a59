package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.kafka.RecordReceiver.ReceivedBatch;
import dev.dispatcher.app.observe.DispatcherMetrics;
import java.time.Duration;
import java.util.OptionalLong;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Intake deduplication on real Kafka (reactor-kafka receiver on Boot's kafka-clients) and PostgreSQL: redelivery,
 * racing instances, and a crash between the local commit and the offset commit never produce a second effect.
 */
class InboxIdempotencyIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void sameRecordDeliveredTwiceInSequenceHasOneEffectAndOneInboxRow() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_twice")) {
            String topic = fx.topic("twice", 1);
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "twice-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("orders", "twice-1"), metrics);

            fx.send(topic, 0, "order-1", "{\"n\":1}");
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 1, WAIT);
            fx.send(topic, 0, "order-1", "{\"n\":1}");
            InboxFixture.await("duplicate counted", () -> InboxFixture.counter(metrics, "duplicate") == 1, WAIT);
            // both offsets are committed once stored: proof the reactor-kafka receiver commits on kafka-clients 4.x
            InboxFixture.await("offset 2 committed", () -> committedIs(fx, "twice-group", topic, 2), WAIT);

            assertThat(AppInfoParser.getVersion()).startsWith("4.");
            assertThat(fx.count("SELECT count(*) FROM effect WHERE message_id = 'order-1'")).isEqualTo(1);
            assertThat(fx.count("SELECT count(*) FROM inbox_message")).isEqualTo(1);
            assertThat(fx.count("""
                    SELECT count(*) FROM inbox_message
                     WHERE consumer_name = 'orders' AND message_id = 'order-1' AND status = 'COMPLETED'
                       AND attempts = 1 AND completed_at IS NOT NULL AND lease_until IS NULL
                       AND event_type = 'TestEvent' AND message_key = 'k-order-1' AND source_offset = 0
                       AND convert_from(payload, 'UTF8') = '{"n":1}'""")).isEqualTo(1);
            assertThat(InboxFixture.counter(metrics, "succeeded")).isEqualTo(1);
            assertThat(metrics.registry().get("dispatcher.transition.attempts").tag("queue", "inbox")
                    .tag("transition", "deliver").tag("outcome", "applied").tag("durable_status", "completed")
                    .counter().count()).isEqualTo(1);
        }
    }

    @Test
    void twoInstancesRacingOnTheSameMessageIdsHaveOneEffectEach() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_race")) {
            String topic = fx.topic("race", 2);
            int n = 200;
            for (int i = 0; i < n; i++) {
                fx.send(topic, i % 2, "m-" + i, "{\"n\":" + i + "}");
            }
            // Two instances of consumer "orders" that both read every record (as two instances do when a
            // partition is briefly owned by both during a rebalance): each id is raced at intake and processing.
            DispatcherMetrics a = InboxFixture.metrics();
            DispatcherMetrics b = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "race-a"), InboxFixture.effectHandler(),
                    InboxFixture.settings("orders", "race-a"), a);
            fx.consumer(fx.receiver(topic, "race-b"), InboxFixture.effectHandler(),
                    InboxFixture.settings("orders", "race-b"), b);

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", n, WAIT);
            // the wait reads every series asserted below: a consumer counts a message after its commit
            InboxFixture.await("every record completed once and seen twice", () ->
                    InboxFixture.counter(a, "duplicate") + InboxFixture.counter(b, "duplicate") == n
                            && InboxFixture.counter(a, "succeeded") + InboxFixture.counter(b, "succeeded") >= n,
                    WAIT);

            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(n);
            assertThat(fx.count("SELECT count(DISTINCT message_id) FROM effect")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM inbox_message")).isEqualTo(n);
            assertThat(InboxFixture.counter(a, "succeeded") + InboxFixture.counter(b, "succeeded")).isEqualTo(n);
            System.out.println("DIAG race: effects by worker a=" + fx.count(
                    "SELECT count(*) FROM effect WHERE worker = 'race-a'") + " b=" + fx.count(
                    "SELECT count(*) FROM effect WHERE worker = 'race-b'") + " duplicates a="
                    + InboxFixture.counter(a, "duplicate") + " b=" + InboxFixture.counter(b, "duplicate"));
        }
    }

    @Test
    void crashAfterLocalCommitBeforeOffsetCommitIsRecognisedOnRedelivery() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_crash")) {
            String topic = fx.topic("crash", 1);
            int n = 20;
            for (int i = 0; i < n; i++) {
                fx.send(topic, 0, "c-" + i, "{\"n\":" + i + "}");
            }
            // The first instance stores and handles every record, then "crashes" before any offset commit: its
            // receiver drops the commit, and closing a reactor-kafka consumer commits only acknowledged offsets.
            RecordReceiver real = fx.receiver(topic, "crash-group");
            RecordReceiver crashesBeforeCommit = () -> real.receive()
                    .map(batch -> new ReceivedBatch(batch.records(), Mono.empty()));
            DispatcherMetrics first = InboxFixture.metrics();
            InboxConsumer crashing = fx.consumer(crashesBeforeCommit, InboxFixture.effectHandler(),
                    InboxFixture.settings("orders", "crash-1"), first);
            fx.awaitCount("SELECT count(*) FROM effect", n, WAIT);
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", n, WAIT);
            crashing.stop().block(WAIT);
            assertThat(fx.committed("crash-group", topic, 0)).isEmpty();

            DispatcherMetrics second = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "crash-group"), InboxFixture.effectHandler(),
                    InboxFixture.settings("orders", "crash-2"), second);
            InboxFixture.await("redelivery recognised", () -> InboxFixture.counter(second, "duplicate") == n, WAIT);
            InboxFixture.await("offsets committed", () -> committedIs(fx, "crash-group", topic, n), WAIT);

            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(n);
            assertThat(fx.count("SELECT count(*) FROM effect WHERE worker = 'crash-2'")).isZero();
            assertThat(fx.count("SELECT count(*) FROM inbox_message")).isEqualTo(n);
            assertThat(InboxFixture.counter(second, "succeeded")).isZero();
        }
    }

    private static boolean committedIs(InboxFixture fx, String group, String topic, long offset) {
        try {
            OptionalLong committed = fx.committed(group, topic, 0);
            return committed.isPresent() && committed.getAsLong() == offset;
        } catch (Exception e) {
            return false;
        }
    }
}
