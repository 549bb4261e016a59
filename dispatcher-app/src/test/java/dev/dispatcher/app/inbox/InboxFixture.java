package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.Result;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Builds inbox consumers on the shared test servers without Spring, one fresh schema per fixture (with a
 * test-owned {@code effect} table that handlers write), and reads durable state through its own JDBC connections.
 * Close it to stop the consumers and close the pools and clients it made.
 */
final class InboxFixture implements AutoCloseable {

    final PostgresServer postgres = TestServers.postgres();
    final KafkaServer kafka;
    final String schema;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private KafkaProducer<String, byte[]> producer;
    private KafkaProducer<byte[], byte[]> rawProducer;

    InboxFixture(String prefix) throws SQLException {
        this(prefix, TestServers.kafka());
    }

    /** A fixture on {@code kafka}, whose own clients (producers, admin) connect with its client properties. */
    InboxFixture(String prefix, KafkaServer kafka) throws SQLException {
        this.kafka = kafka;
        this.schema = postgres.createSchema(prefix);
        try (Connection c = jdbc(); Statement s = c.createStatement()) {
            // No unique key on purpose: exactly-once effects must come from the inbox, not from this table.
            s.execute("CREATE TABLE effect (id bigserial PRIMARY KEY, message_id text NOT NULL, worker text NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT clock_timestamp())");
        }
    }

    ConnectionPool pool(String appName, int maxSize) {
        PostgresqlConnectionFactory direct = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host(postgres.host()).port(postgres.port()).database(postgres.database())
                .username(postgres.username()).password(postgres.password())
                .schema(schema).applicationName(appName)
                .forceBinary(true) // as the service: binary results (see DatabaseConfiguration)
                .build());
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(direct)
                .initialSize(0).maxSize(maxSize).validationQuery("SELECT 1").build());
        closeables.add(pool::dispose);
        return pool;
    }

    /** A topic unique to this fixture. */
    String topic(String name, int partitions) {
        String topic = name + "-" + schema;
        kafka.createTopic(topic, partitions);
        return topic;
    }

    RecordReceiver receiver(String topic, String groupId) {
        return receiver(kafka.clientProperties(), topic, groupId);
    }

    /** A receiver whose consumer connects with {@code client} (the address, and credentials where needed). */
    RecordReceiver receiver(Map<String, Object> client, String topic, String groupId) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("max.poll.records", 500);
        return RecordReceiver.reactorKafka(props, List.of(topic), groupId);
    }

    /** This fixture's own client settings, with {@code more}. */
    private Map<String, Object> client(Object... more) {
        Map<String, Object> props = new HashMap<>(kafka.clientProperties());
        for (int i = 0; i < more.length; i += 2) {
            props.put((String) more[i], more[i + 1]);
        }
        return props;
    }

    /** The value limit of {@link #settings}: the default, 1 MiB. */
    static final long MAX_PAYLOAD_BYTES = 1024 * 1024;

    static InboxSettings settings(String consumer, String workerId) {
        return settings(consumer, workerId, MAX_PAYLOAD_BYTES);
    }

    static InboxSettings settings(String consumer, String workerId, long maxPayloadBytes) {
        return new InboxSettings(consumer, workerId, 64, 8, 2, Duration.ofSeconds(30), Duration.ofMillis(100),
                Duration.ofMillis(5), RetryPolicy.of(Duration.ofMillis(50), Duration.ofMillis(200), 2.0, Jitter.NONE,
                        5, new SplittableRandom(7)),
                10_000, Duration.ofSeconds(60), Duration.ofSeconds(10), maxPayloadBytes);
    }

    static DispatcherMetrics metrics() {
        return new DispatcherMetrics(new SimpleMeterRegistry());
    }

    /** A started consumer on its own pool (application_name = worker id). */
    InboxConsumer consumer(RecordReceiver receiver, InboxHandler handler, InboxSettings settings,
            DispatcherMetrics metrics) {
        return consumer(receiver, handler, settings, metrics, null);
    }

    /** {@link #consumer} publishing dead letters with {@code deadLetters} (closed with the fixture), or none. */
    InboxConsumer consumer(RecordReceiver receiver, InboxHandler handler, InboxSettings settings,
            DispatcherMetrics metrics, RecordPublisher deadLetters) {
        if (deadLetters != null) {
            closeables.add(deadLetters);
        }
        ConnectionPool pool = pool(settings.loop().workerId(), 12);
        InboxConsumer consumer = new InboxConsumer(receiver, InboxStore.r2dbc(pool), handler, settings, metrics,
                deadLetters);
        consumer.start();
        closeables.add(() -> consumer.stop().block(Duration.ofSeconds(30)));
        return consumer;
    }

    /** A handler that writes one {@code effect} row in the message's transaction, then runs {@code after}. */
    static InboxHandler effectHandler(BiFunction<InboxMessage, HandlerContext, Mono<Void>> after) {
        return new InboxHandler() {
            @Override
            public String name() {
                return "effect";
            }

            @Override
            public Mono<Void> handle(InboxMessage message, HandlerContext context) {
                return Flux.from(context.connection()
                                .createStatement("INSERT INTO effect (message_id, worker) VALUES ($1, $2)")
                                .bind("$1", message.id().value()).bind("$2", context.workerId())
                                .execute())
                        .flatMap(Result::getRowsUpdated)
                        .then(Mono.defer(() -> after.apply(message, context)));
            }
        };
    }

    static InboxHandler effectHandler() {
        return effectHandler((m, c) -> Mono.empty());
    }

    /** A handler with only a remote effect (no transaction, as the webhook): {@code handle} for every message. */
    static InboxHandler withoutTransaction(BiFunction<InboxMessage, HandlerContext, Mono<Void>> handle) {
        return new InboxHandler() {
            @Override
            public String name() {
                return "without-transaction";
            }

            @Override
            public boolean transactional() {
                return false;
            }

            @Override
            public Mono<Void> handle(InboxMessage message, HandlerContext context) {
                return handle.apply(message, context);
            }
        };
    }

    /** Sends and waits for the acknowledgement; {@code partition} may be null. */
    void send(String topic, Integer partition, String messageId, String payload) throws Exception {
        if (producer == null) {
            producer = new KafkaProducer<>(client("acks", "all"),
                    new StringSerializer(), new ByteArraySerializer());
            closeables.add(producer);
        }
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, partition, "k-" + messageId,
                payload.getBytes(StandardCharsets.UTF_8));
        record.headers().add("message-id", messageId.getBytes(StandardCharsets.UTF_8));
        record.headers().add("event-type", "TestEvent".getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
    }

    /**
     * Sends a record exactly as given (key and header values as bytes, which a real producer may send whatever they
     * hold) and waits for the acknowledgement; {@code headers} are name/value pairs.
     */
    void sendRaw(String topic, int partition, byte[] key, byte[] value, Object... headers) throws Exception {
        if (rawProducer == null) {
            rawProducer = new KafkaProducer<>(client("acks", "all"),
                    new ByteArraySerializer(), new ByteArraySerializer());
            closeables.add(rawProducer);
        }
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, partition, key, value);
        for (int i = 0; i < headers.length; i += 2) {
            Object v = headers[i + 1];
            record.headers().add((String) headers[i],
                    v instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : (byte[]) v);
        }
        rawProducer.send(record).get();
    }

    Connection jdbc() throws SQLException {
        return postgres.openConnection(schema);
    }

    long count(String sql) throws SQLException {
        try (Connection c = jdbc(); ResultSet rows = c.createStatement().executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    Map<String, Long> inboxStatuses() throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT status, count(*) FROM inbox_message GROUP BY status ORDER BY status")) {
            while (rows.next()) {
                counts.put(rows.getString(1), rows.getLong(2));
            }
        }
        return counts;
    }

    /** Waits until {@code sql} (a count) returns {@code expected}, or fails after {@code timeout}. */
    void awaitCount(String sql, long expected, Duration timeout) {
        Awaitility.await("%d from %s".formatted(expected, sql)).atMost(timeout).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> {
                    long seen = count(sql);
                    if (seen != expected) { // the inbox's state, told only when it is not yet as expected
                        assertThat(seen).as("%s; inbox %s", sql, inboxStatuses()).isEqualTo(expected);
                    }
                });
    }

    /** Waits until {@code condition} holds, named {@code what}, or fails after {@code timeout}. */
    static void await(String what, BooleanSupplier condition, Duration timeout) {
        Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }

    static double counter(DispatcherMetrics metrics, String result) {
        Counter c = metrics.registry().find("dispatcher.messages").tag("queue", "inbox").tag("result", result)
                .counter();
        return c == null ? 0 : c.count();
    }

    /** The group's committed offset on {@code topic}'s partition, if any. */
    OptionalLong committed(String groupId, String topic, int partition) throws Exception {
        try (Admin admin = Admin.create(client())) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get();
            OffsetAndMetadata o = offsets.get(new TopicPartition(topic, partition));
            return o == null ? OptionalLong.empty() : OptionalLong.of(o.offset());
        }
    }

    long endOffset(String topic, int partition) throws Exception {
        try (Admin admin = Admin.create(client())) {
            TopicPartition tp = new TopicPartition(topic, partition);
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
        }
    }

    @Override
    public void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                // best effort
            }
        }
    }
}
