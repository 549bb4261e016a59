package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Per-key order in the inbox ({@code ordering=per-key}): with two consumer instances on one consumer name, a key's
 * messages reach the handler one at a time and in offset order while keys run concurrently; a failing message holds
 * back only its own key until it succeeds (or is dead-lettered), and its key's later rows then follow in order.
 * Durable state is read through fresh connections.
 */
class InboxKeyOrderIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Per-key settings: {@code concurrency} handlers at once, retries every 20-40 ms up to {@code attempts}. */
    private static InboxSettings settings(String workerId, int concurrency, int attempts) {
        return new InboxSettings("ordered", workerId, 64, concurrency, 4, Duration.ofSeconds(30),
                Duration.ofMillis(100), Duration.ofMillis(5), RetryPolicy.of(Duration.ofMillis(20),
                        Duration.ofMillis(40), 2.0, Jitter.NONE, attempts, new SplittableRandom(7)),
                10_000, Duration.ofSeconds(30), Duration.ofSeconds(10), InboxFixture.MAX_PAYLOAD_BYTES)
                .withOrdering(Ordering.PER_KEY);
    }

    /**
     * A handler without a transaction that records, per key, the offsets it was given in the order it was given them,
     * notes any time two invocations of one key overlapped, and takes a few random milliseconds.
     */
    static final class RecordingHandler {

        final Map<String, List<Long>> seen = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> byWorker = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger concurrent = new AtomicInteger();
        final AtomicInteger mostConcurrent = new AtomicInteger();
        private final Function<InboxMessage, Mono<Void>> outcome;

        RecordingHandler(Function<InboxMessage, Mono<Void>> outcome) {
            this.outcome = outcome;
        }

        /** This recorder as a handler without a transaction. */
        InboxHandler handler() {
            return InboxFixture.withoutTransaction(this::handle);
        }

        private Mono<Void> handle(InboxMessage message, HandlerContext context) {
            return Mono.defer(() -> {
                AtomicInteger key = running.computeIfAbsent(message.key(), k -> new AtomicInteger());
                if (key.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                mostConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                seen.computeIfAbsent(message.key(), k -> Collections.synchronizedList(new ArrayList<>()))
                        .add(message.offset());
                byWorker.computeIfAbsent(context.workerId(), w -> new AtomicInteger()).incrementAndGet();
                Runnable done = () -> {
                    concurrent.decrementAndGet();
                    key.decrementAndGet();
                };
                // before the outcome travels on (doFinally would run after the next message of the key started)
                return Mono.delay(Duration.ofMillis(ThreadLocalRandom.current().nextInt(4)))
                        .then(Mono.defer(() -> outcome.apply(message)))
                        .doOnTerminate(done)
                        .doOnCancel(done);
            });
        }
    }

    @Test
    void aKeysMessagesReachTheHandlerOneAtATimeInOffsetOrderAcrossTwoInstances() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_order")) {
            String topic = fx.topic("order", 4);
            int keys = 64;
            int perKey = 20;
            Map<String, List<Long>> produced = produce(fx, topic, keys, perKey);
            RecordingHandler handler = new RecordingHandler(m -> Mono.empty());

            for (String instance : List.of("order-a", "order-b")) {
                fx.consumer(fx.receiver(topic, "order-group"), handler.handler(), settings(instance, 16, 5),
                        InboxFixture.metrics());
            }

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", (long) keys * perKey, WAIT);
            assertThat(handler.overlaps).as("two invocations of one key at once").hasValue(0);
            assertThat(handler.seen).as("each key's offsets as the handler saw them").isEqualTo(produced);
            assertThat(handler.mostConcurrent.get()).as("keys ran concurrently, up to 2 x 16").isBetween(2, 32);
            assertThat(handler.byWorker.keySet()).as("both instances handled messages")
                    .containsExactlyInAnyOrder("order-a", "order-b");
        }
    }

    @Test
    void aFailingKeyHoldsBackOnlyItselfAndItsRowsFollowInOrderOnceItSucceeds() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_hold")) {
            String topic = fx.topic("hold", 1);
            AtomicBoolean failing = new AtomicBoolean(true);
            RecordingHandler handler = new RecordingHandler(m -> failing.get() && m.id().value().equals("bad-1")
                    ? Mono.error(new IllegalStateException("downstream refuses bad-1"))
                    : Mono.empty());
            fx.consumer(fx.receiver(topic, "hold-group"), handler.handler(), settings("hold-a", 8, 1000),
                    InboxFixture.metrics());
            List<String> order = List.of("bad-1", "good-1", "bad-2", "good-2", "bad-3", "good-3");
            for (String id : order) {
                send(fx, topic, id.startsWith("bad") ? "bad" : id, id);
            }

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 3, WAIT);
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE message_id = 'bad-1' AND attempts >= 3", 1, WAIT);
            // claimed with their head's retries and given back unattempted: never an attempt of their own spent
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE message_id IN ('bad-2', 'bad-3')"
                    + " AND status = 'PENDING' AND attempts <= 1")).as("the failing key's later rows wait")
                    .isEqualTo(2);
            assertThat(statuses("good-1", "good-2", fx)).containsExactly("COMPLETED/1", "COMPLETED/1");
            assertThat(handler.seen.get("bad")).as("only the failing head was handed on").containsOnly(0L);

            failing.set(false);
            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 6, WAIT);
            List<Long> bad = new ArrayList<>(handler.seen.get("bad"));
            assertThat(bad.subList(bad.size() - 3, bad.size())).as("the key's rows follow in offset order")
                    .containsExactly(0L, 2L, 4L);
            assertThat(bad.subList(0, bad.size() - 2)).containsOnly(0L);
            assertThat(handler.overlaps).hasValue(0);
        }
    }

    @Test
    void aDeadLetteredHeadFreesItsKey() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_deadhead")) {
            String topic = fx.topic("deadhead", 1);
            RecordingHandler handler = new RecordingHandler(m -> m.id().value().equals("bad-1")
                    ? Mono.error(InboxHandlerException.permanent("bad-1 can never be handled"))
                    : Mono.empty());
            fx.consumer(fx.receiver(topic, "deadhead-group"), handler.handler(), settings("dead-a", 8, 5),
                    InboxFixture.metrics());
            for (String id : List.of("bad-1", "bad-2", "bad-3")) {
                send(fx, topic, "bad", id);
            }

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 2, WAIT);
            assertThat(statuses("bad-1", "bad-2", fx)).containsExactly("DEAD_LETTERED/1", "COMPLETED/1");
            assertThat(handler.seen.get("bad")).containsExactly(0L, 1L, 2L);
        }
    }

    /** Produces {@code perKey} records for each of {@code keys} keys, acknowledged; each key's offsets in order. */
    private static Map<String, List<Long>> produce(InboxFixture fx, String topic, int keys, int perKey)
            throws Exception {
        Map<String, List<Long>> offsets = new ConcurrentHashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                fx.kafka.bootstrapServers(), "acks", "all", "linger.ms", 5), new StringSerializer(),
                new StringSerializer())) {
            List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>();
            List<String> sentKeys = new ArrayList<>();
            for (int n = 0; n < perKey; n++) {
                for (int k = 0; k < keys; k++) {
                    String key = "key-" + k;
                    ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, "{\"n\":" + n + "}");
                    record.headers().add("message-id", (key + "-" + n).getBytes(StandardCharsets.UTF_8));
                    acks.add(producer.send(record));
                    sentKeys.add(key);
                }
            }
            for (int i = 0; i < acks.size(); i++) {
                offsets.computeIfAbsent(sentKeys.get(i), k -> new ArrayList<>()).add(acks.get(i).get().offset());
            }
        }
        return offsets;
    }

    private static void send(InboxFixture fx, String topic, String key, String id) throws Exception {
        fx.sendRaw(topic, 0, key.getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8),
                "message-id", id);
    }

    /** {@code status/attempts} of each id, read through a fresh connection. */
    private static List<String> statuses(String first, String second, InboxFixture fx) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT status || '/' || attempts FROM inbox_message WHERE message_id = ?")) {
            for (String id : List.of(first, second)) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    out.add(r.next() ? r.getString(1) : "absent");
                }
            }
        }
        return out;
    }
}
