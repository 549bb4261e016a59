package dev.dispatcher.load.reference;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Progress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The common hand-written outbox loop, as the same-run baseline: in one thread, claim one row
 * ({@code FOR UPDATE SKIP LOCKED LIMIT 1}), send it synchronously ({@code acks=all}, idempotent, no linger), mark
 * it delivered with one UPDATE, commit; repeat until the outbox is empty. Naive in its round trips, not in its
 * index: the claim reads the live rows' index ({@code seq > 0} matches {@code outbox_message_live_seq_idx}'s
 * predicate), so the baseline does not slow down as it drains.
 */
public final class NaiveRelay {

    private NaiveRelay() {
    }

    /**
     * A hand-written relay's producer ({@code acks=all}, idempotent, no linger), shared with {@link ReferenceRelay}.
     */
    static KafkaProducer<String, byte[]> producer(String bootstrapServers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    /** A row as a hand-written relay sends it: the headers the harness's consumers read ({@code Confirmations}). */
    static ProducerRecord<String, byte[]> record(String id, String topic, String key, String eventType,
            byte[] payload) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, payload);
        record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
        record.headers().add("event-type", eventType.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** Drains the schema's outbox of its {@code n} rows, with a progress line every few seconds; returns messages sent. */
    public static long drain(BenchEnvironment env, String schema, long n) throws Exception {
        Progress progress = Progress.of("baseline");
        long sent = 0;
        try (KafkaProducer<String, byte[]> producer = producer(env.kafka().bootstrapServers());
             Connection c = env.jdbc(schema);
             PreparedStatement claim = c.prepareStatement("""
                     SELECT id, topic, message_key, event_type, payload FROM outbox_message
                      WHERE status = 'PENDING' AND seq > 0 ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED""");
             PreparedStatement done = c.prepareStatement(
                     "UPDATE outbox_message SET status = 'DELIVERED', delivered_at = now(), version = version + 1 WHERE id = ?")) {
            c.setAutoCommit(false);
            while (true) {
                try (ResultSet r = claim.executeQuery()) {
                    if (!r.next()) {
                        c.commit();
                        return sent;
                    }
                    producer.send(record(r.getString("id"), r.getString("topic"), r.getString("message_key"),
                            r.getString("event_type"), r.getBytes("payload"))).get();
                    done.setObject(1, r.getObject("id"));
                    done.executeUpdate();
                    c.commit();
                    sent++;
                    long sentSoFar = sent;
                    progress.maybePrint(() -> progress.count(sentSoFar, n, "sent"));
                }
            }
        }
    }
}
