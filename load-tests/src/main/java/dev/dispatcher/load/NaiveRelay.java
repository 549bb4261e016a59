package dev.dispatcher.load;

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
 * it delivered with one UPDATE, commit; repeat until the outbox is empty.
 */
final class NaiveRelay {

    private NaiveRelay() {
    }

    /** Drains the schema's outbox; returns messages sent. */
    static long drain(BenchEnvironment env, String schema) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        long sent = 0;
        try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
             Connection c = env.jdbc(schema);
             PreparedStatement claim = c.prepareStatement("""
                     SELECT id, topic, message_key, event_type, payload FROM outbox_message
                      WHERE status = 'PENDING' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED""");
             PreparedStatement done = c.prepareStatement(
                     "UPDATE outbox_message SET status = 'DELIVERED', delivered_at = now(), version = version + 1 WHERE id = ?")) {
            c.setAutoCommit(false);
            while (true) {
                try (ResultSet r = claim.executeQuery()) {
                    if (!r.next()) {
                        c.commit();
                        return sent;
                    }
                    ProducerRecord<String, byte[]> record = new ProducerRecord<>(r.getString("topic"),
                            r.getString("message_key"), r.getBytes("payload"));
                    record.headers().add("message-id", r.getString("id").getBytes(StandardCharsets.UTF_8));
                    record.headers().add("event-type", r.getString("event_type").getBytes(StandardCharsets.UTF_8));
                    producer.send(record).get();
                    done.setObject(1, r.getObject("id"));
                    done.executeUpdate();
                    c.commit();
                    sent++;
                }
            }
        }
    }
}
