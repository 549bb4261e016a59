package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.Inbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The inbox benchmark's records on its topic: N ordinary ones ({@code message-id} headers, {@value Inbox#KEYS} keys,
 * each id starting with its key so the failing key's ids are known), the {@code --poison-key} record, and what became
 * of that record and of the partitions after the drain (read through a connection and an admin client of the
 * harness's own).
 *
 * @param env the servers
 * @param topic the inbox consumer's topic
 */
public record InboxRecords(BenchEnvironment env, String topic) {

    public static final int PARTITIONS = 6;
    /** The odd record's key: Confluent's wire format, magic byte 0x00 then a 4-byte schema id and Avro bytes. */
    static final byte[] POISON_KEY = {0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 'o', 'd', 'd'};

    /**
     * What became of the odd record and the partitions.
     *
     * @param state its inbox status, or {@code absent}
     * @param partition its source partition as stored (-1 when absent)
     * @param offset its source offset as stored (-1 when absent)
     * @param handled whether the handler saw it
     * @param lastError its last error, if any
     * @param partitionsBehind partitions whose committed offset is short of their end
     */
    record PoisonOutcome(String state, int partition, long offset, boolean handled, String lastError,
            int partitionsBehind) {
    }

    /** Produces {@code n} records with a {@code message-id} header, acknowledged; returns the ids. */
    public Set<String> produce(int n, int payloadBytes) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.kafka().bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // A fresh topic's leaders may not be elected when the first batch goes out; an idempotent producer then
        // failed with OutOfOrderSequence. Without idempotence a retried batch may land twice, which the inbox
        // absorbs as a duplicate record (an effect is counted once per id either way).
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        Set<String> ids = new HashSet<>(n * 2);
        byte[] payload = ("{\"x\":\"" + "x".repeat(Math.max(0, payloadBytes - 8)) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String key = "key-" + (i % Inbox.KEYS);
                String id = key + "/" + UUID.randomUUID();
                ids.add(id);
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, payload);
                record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
                record.headers().add("event-type", "BenchEvent".getBytes(StandardCharsets.UTF_8));
                acks.add(producer.send(record));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        }
        return ids;
    }

    /** Produces the odd record, id {@code id}, to partition 0, acknowledged. */
    void producePoisonKey(String id) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.kafka().bootstrapServers(), ProducerConfig.ACKS_CONFIG,
                "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, POISON_KEY,
                    "{\"odd\":true}".getBytes(StandardCharsets.UTF_8));
            record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
            record.headers().add("event-type", "BenchEvent".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
    }

    /** The odd record's row in {@code schema}, and the partitions {@code group} left behind. */
    PoisonOutcome poisonOutcome(String schema, String id, boolean handled, String group) throws Exception {
        int behind = behind(group);
        try (Connection c = env.jdbc(schema); PreparedStatement q = c.prepareStatement(
                "SELECT status, source_partition, source_offset, last_error FROM inbox_message WHERE message_id = ?")) {
            q.setString(1, id);
            try (ResultSet r = q.executeQuery()) {
                return r.next()
                        ? new PoisonOutcome(r.getString(1), r.getInt(2), r.getLong(3), handled, r.getString(4), behind)
                        : new PoisonOutcome("absent", -1, -1, handled, null, behind);
            }
        }
    }

    /** Partitions of the topic whose committed offset in {@code group} is short of their end offset. */
    private int behind(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                env.kafka().bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            int behind = 0;
            for (var end : admin.listOffsets(latest).all().get().entrySet()) {
                OffsetAndMetadata at = committed.get(end.getKey());
                if (end.getValue().offset() > 0 && (at == null || at.offset() < end.getValue().offset())) {
                    behind++;
                }
            }
            return behind;
        }
    }
}
