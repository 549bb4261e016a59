package dev.dispatcher.load;

import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.inbox.HandlerContext;
import dev.dispatcher.app.inbox.InboxConsumer;
import dev.dispatcher.app.inbox.InboxHandler;
import dev.dispatcher.app.inbox.InboxMessage;
import dev.dispatcher.app.inbox.InboxSettings;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.queue.ThreadLocalRandomSource;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
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
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The inbox at its receiver's pace ({@code inbox} mode, RESULT {@code inbox-drain}): N records are produced to a
 * topic, then one inbox consumer with the default settings (or {@code --concurrency}) takes them in and runs its
 * handler on each, and the run is timed until every record's effect has been seen.
 * <ul>
 *   <li>{@code --handler webhook}: the built-in webhook handler POSTs to a local {@link WebhookReceiver} that
 *       answers after {@code --receiver-delay-ms} (default 2). Its reference ceiling, measured in the same run, is
 *       the receiver driven directly by an HTTP client at the consumer's concurrency.</li>
 *   <li>{@code --handler sql}: an in-process handler inserts one row per message in the message's own transaction
 *       (with the completion, one durable commit per message). Its reference ceiling is PostgreSQL's own: one-row
 *       durable INSERT transactions at the same concurrency, from JDBC.</li>
 * </ul>
 * Effects are counted where they happen (at the receiver by {@code Idempotency-Key}, or as rows of the effect
 * table): {@code lost} are ids without an effect, {@code duplicates} ids with more than one.
 *
 * <p>{@code --poison-key true}: one record whose key is in Confluent's wire format (it starts with NUL, which
 * PostgreSQL text refuses) goes to partition 0 before the N ordinary records, some of which follow it there. The run
 * ends when every ordinary record is handled (or at the 10-minute limit); the RESULT adds {@code handled} (ordinary
 * records handled), the odd record's final state ({@code poison_state}: its inbox status, {@code poison_partition},
 * {@code poison_offset}, {@code poison_handled}: whether the handler saw it) and {@code partitions_behind}: partitions
 * whose committed offset is short of their end after the run (0: no partition stopped).
 *
 * <p>{@code --ordering per-key}: the consumer hands a key's records to the handler one at a time, in offset order
 * (64 keys); {@code none}, the default, in any order. {@code --failing-key true}: the handler fails every record of
 * {@code key-0} (the receiver answers 503, or the SQL handler throws); the run then drains twice, first without the
 * failing key as the reference, and times both until the other 63 keys' records are handled: {@code msgs_per_s} is
 * their rate beside the failing key, {@code reference_msgs_per_s} without it, and {@code ratio_to_unfailed} the
 * one over the other.
 */
final class InboxBenchmark {

    private static final int PARTITIONS = 6;

    private InboxBenchmark() {
    }

    /** One drain: rate, and effects as counted at their destination; {@code poison} only with a poison key. */
    record InboxRun(int n, double msgsPerSecond, long lost, long duplicates, PoisonOutcome poison) {
    }

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

    /** The odd record's key: Confluent's wire format, magic byte 0x00 then a 4-byte schema id and Avro bytes. */
    static final byte[] POISON_KEY = {0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 'o', 'd', 'd'};

    static String run(BenchEnvironment env, BenchOptions o) throws Exception {
        boolean webhook = !"sql".equals(o.handler());
        int concurrency = o.inboxConcurrency();
        try (WebhookReceiver receiver = new WebhookReceiver(Duration.ofMillis(o.receiverDelayMs()), o.failEvery())) {
            if (o.warmup() > 0) {
                InboxRun w = drain(env, o, receiver, webhook, concurrency, o.warmup(), false, Measured.ALL);
                System.out.printf(Locale.ROOT, "warm-up: %d messages at %.0f msgs/s (not reported)%n", w.n(),
                        w.msgsPerSecond());
            }
            double ceiling = webhook ? receiverCeiling(receiver, concurrency, Math.min(o.n(), 20_000))
                    : transactionCeiling(env, concurrency, Math.min(o.n(), 20_000));
            InboxRun reference = o.failingKey()
                    ? drain(env, o, receiver, webhook, concurrency, o.n(), false, Measured.OTHER_KEYS) : null;
            InboxRun run = drain(env, o, receiver, webhook, concurrency, o.n(), o.poisonKey(),
                    o.failingKey() ? Measured.OTHER_KEYS_BESIDE_FAILING : Measured.ALL);
            Map<String, Object> r = RelayBenchmark.common(env, o, "inbox-drain");
            r.put("keys", KEYS);
            r.put("handler", webhook ? "webhook" : "sql");
            r.put("n", run.n());
            r.put("msgs_per_s", RelayBenchmark.round(run.msgsPerSecond()));
            r.put("receiver_ceiling_per_s", RelayBenchmark.round(ceiling));
            r.put("ratio_to_ceiling", RelayBenchmark.round(run.msgsPerSecond() / ceiling));
            r.put("lost", run.lost());
            r.put("duplicates", run.duplicates());
            r.put("concurrency", concurrency);
            if (webhook) {
                r.put("receiver_delay_ms", o.receiverDelayMs());
                r.put("fail_every", o.failEvery());
            }
            r.put("failing_key", o.failingKey());
            if (reference != null) {
                r.put("measured", "records of the 63 keys that do not fail");
                r.put("reference_msgs_per_s", RelayBenchmark.round(reference.msgsPerSecond()));
                r.put("ratio_to_unfailed", RelayBenchmark.round(run.msgsPerSecond() / reference.msgsPerSecond()));
            }
            r.put("poison_key", o.poisonKey());
            if (run.poison() != null) {
                r.put("handled", run.n() - run.lost());
                r.put("poison_state", run.poison().state());
                r.put("poison_partition", run.poison().partition());
                r.put("poison_offset", run.poison().offset());
                r.put("poison_handled", run.poison().handled());
                r.put("partitions_behind", run.poison().partitionsBehind());
            }
            return RelayBenchmark.json(r);
        }
    }

    /** The records a drain is timed on. */
    enum Measured {
        /** Every record. */
        ALL,
        /** The records of every key but {@link #FAILING_KEY}, which is handled as the others. */
        OTHER_KEYS,
        /** The records of every key but {@link #FAILING_KEY}, whose records all fail meanwhile. */
        OTHER_KEYS_BESIDE_FAILING;

        boolean othersOnly() {
            return this != ALL;
        }
    }

    /** Keys of the produced records, {@code key-0} to {@code key-63}. */
    static final int KEYS = 64;
    /** The key whose records fail with {@code --failing-key true}. */
    static final String FAILING_KEY = "key-0";

    static InboxRun drain(BenchEnvironment env, BenchOptions o, WebhookReceiver receiver, boolean webhook,
            int concurrency, int n, boolean poisonKey, Measured measured) throws Exception {
        String schema = env.schema("inbox");
        String topic = "inbox-" + schema;
        env.createTopic(topic, PARTITIONS);
        if (!webhook) {
            try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE bench_effect (message_id text NOT NULL, message_key text,"
                        + " created_at timestamptz NOT NULL DEFAULT now())");
            }
        }
        String oddId = "poison-key-" + schema;
        if (poisonKey) {
            producePoisonKey(env, topic, oddId);
        }
        Set<String> ids = produce(env, topic, o, n);
        Set<String> failingKeyIds = ids.stream().filter(id -> id.startsWith(FAILING_KEY + "/"))
                .collect(Collectors.toSet());
        Set<String> measuredIds = measured.othersOnly()
                ? ids.stream().filter(id -> !failingKeyIds.contains(id)).collect(Collectors.toSet()) : ids;
        int target = measuredIds.size();
        boolean fail = measured == Measured.OTHER_KEYS_BESIDE_FAILING;
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT"); // every timed phase starts from a fresh checkpoint, as the relay's
        }
        InboxProperties.Consumer defaults = InboxProperties.Consumer.of("bench", List.of(topic), null, "bench", null);
        InboxSettings settings = new InboxSettings("bench", "bench-inbox", defaults.batchSize(), concurrency,
                defaults.maxInFlightBatches(), defaults.leaseDuration(), defaults.pollInterval(),
                defaults.claimLinger(), RetryPolicy.of(Duration.ofMillis(200), Duration.ofSeconds(2), 2.0,
                        Jitter.FULL, 10, ThreadLocalRandomSource.INSTANCE),
                defaults.maxBacklog(), defaults.handlerTimeout(), Duration.ofSeconds(30),
                defaults.maxPayloadSize().toBytes()).withOrdering(o.ordering());
        ConnectionPool pool = env.pool(schema, "bench-inbox",
                (webhook ? 0 : concurrency) + defaults.maxInFlightBatches() * 2 + 4);
        InboxHandler handler = webhook
                ? InboxHandler.webhook(URI.create(receiver.url("/hook")), Duration.ofSeconds(10), concurrency)
                : new InsertOneRow(fail ? FAILING_KEY : null);
        LongSupplier effects;
        long effectsBefore = webhook ? receiver.effects() : 0;
        if (webhook) {
            // the odd record's effect, if it is handled, is not one of the N; nor are the failing key's when only the
            // other keys are measured
            effects = () -> receiver.effects() - effectsBefore - (poisonKey && receiver.handled(oddId) ? 1 : 0)
                    - (measured.othersOnly() ? failingKeyIds.stream().filter(receiver::handled).count() : 0);
            receiver.failKey(fail ? FAILING_KEY : null);
        } else {
            // one connection for the polls (a new one each time forks a backend of the PostgreSQL being measured);
            // count(*) is a plain scan, where DISTINCT sorts every id (15-40 ms a poll): the ids are checked to be
            // distinct only once there are enough rows
            Connection poll = env.jdbcUntilClosed(schema);
            String ordinary = " FROM bench_effect WHERE message_id <> '" + oddId + "'"
                    + (measured.othersOnly() ? " AND message_key IS DISTINCT FROM '" + FAILING_KEY + "'" : "");
            effects = () -> {
                long rows = count(poll, "SELECT count(*)" + ordinary);
                return rows < target ? rows : count(poll, "SELECT count(DISTINCT message_id)" + ordinary);
            };
        }
        RecordReceiver records = RecordReceiver.reactorKafka(Map.of("bootstrap.servers", env.kafka.bootstrapServers(),
                "max.poll.records", 500), List.of(topic), "bench-" + schema);
        InboxConsumer consumer = new InboxConsumer(records, InboxStore.r2dbc(pool), handler, settings,
                new DispatcherMetrics(new SimpleMeterRegistry()));
        long start = System.nanoTime();
        consumer.start();
        long deadline = start + Duration.ofMinutes(10).toNanos();
        long nextProgress = start + Duration.ofSeconds(3).toNanos();
        long seen = 0;
        while ((seen = effects.getAsLong()) < target && System.nanoTime() < deadline) {
            // the SQL handler's count scans the effect table: polled every 20 ms it cost PostgreSQL more than the
            // handler's own work; every 200 ms it is about one percent of a core, at most 0.2 s late
            Thread.sleep(webhook ? 2 : 200); // the harness's main thread polls the effect count
            if (System.nanoTime() > nextProgress) {
                double s = (System.nanoTime() - start) / 1e9;
                System.out.printf(Locale.ROOT, "inbox: %6.1fs effects %d of %d, %.0f msgs/s%n", s, seen, target,
                        seen / s);
                nextProgress = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            }
        }
        long elapsed = System.nanoTime() - start;
        consumer.stop().block(Duration.ofSeconds(60)); // main thread
        receiver.failKey(null);
        double rate = target / (elapsed / 1e9);
        long lost;
        long duplicates;
        if (webhook) {
            lost = receiver.lost(measuredIds);
            duplicates = receiver.duplicateEffects();
        } else {
            lost = target - count(env, schema, "SELECT count(DISTINCT message_id) FROM bench_effect WHERE message_id"
                    + " <> '" + oddId + "'" + (measured.othersOnly() ? " AND message_key IS DISTINCT FROM '"
                    + FAILING_KEY + "'" : ""));
            duplicates = count(env, schema, "SELECT count(*) FROM (SELECT message_id FROM bench_effect"
                    + " GROUP BY message_id HAVING count(*) > 1) d");
        }
        System.out.printf(Locale.ROOT, "inbox drain (%s, ordering %s, concurrency %d%s): %d messages in %.2f s ="
                        + " %.0f msgs/s; lost %d, duplicate effects %d%s%n", webhook ? "webhook" : "sql",
                o.orderingName(), concurrency, switch (measured) {
                    case ALL -> "";
                    case OTHER_KEYS -> ", timed on the keys but " + FAILING_KEY;
                    case OTHER_KEYS_BESIDE_FAILING -> ", timed on the keys but " + FAILING_KEY + ", which fails";
                }, target, elapsed / 1e9, rate, lost, duplicates, webhook ? "; receiver calls " + receiver.calls()
                        + ", 503s " + receiver.answered503() + ", for the failing key " + receiver.failingKeyCalls()
                        + ", without Idempotency-Key " + receiver.callsWithoutIdempotencyKey() : "");
        PoisonOutcome poison = null;
        if (poisonKey) {
            boolean handled = webhook ? receiver.handled(oddId)
                    : count(env, schema, "SELECT count(*) FROM bench_effect WHERE message_id = '" + oddId + "'") > 0;
            poison = poisonOutcome(env, schema, oddId, handled, behind(env, topic, "bench-" + schema));
            System.out.printf(Locale.ROOT, "poison key: %d of %d ordinary records handled; the odd record is %s at"
                            + " %d@%d, handled %s%s; partitions behind their end: %d%n", n - lost, n, poison.state(),
                    poison.partition(), poison.offset(), poison.handled(),
                    poison.lastError() == null ? "" : " (" + poison.lastError() + ")", poison.partitionsBehind());
        }
        return new InboxRun(target, rate, lost, duplicates, poison);
    }

    /** Produces the odd record to partition 0, acknowledged, before the ordinary ones. */
    private static void producePoisonKey(BenchEnvironment env, String topic, String id) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG,
                "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, POISON_KEY,
                    "{\"odd\":true}".getBytes(StandardCharsets.UTF_8));
            record.headers().add("message-id", id.getBytes(StandardCharsets.UTF_8));
            record.headers().add("event-type", "BenchEvent".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get();
        }
    }

    /** The odd record's row, read through its own connection. */
    private static PoisonOutcome poisonOutcome(BenchEnvironment env, String schema, String id, boolean handled,
            int partitionsBehind) throws Exception {
        try (Connection c = env.jdbc(schema); PreparedStatement q = c.prepareStatement(
                "SELECT status, source_partition, source_offset, last_error FROM inbox_message WHERE message_id = ?")) {
            q.setString(1, id);
            try (ResultSet r = q.executeQuery()) {
                return r.next()
                        ? new PoisonOutcome(r.getString(1), r.getInt(2), r.getLong(3), handled, r.getString(4),
                                partitionsBehind)
                        : new PoisonOutcome("absent", -1, -1, handled, null, partitionsBehind);
            }
        }
    }

    /** Partitions of {@code topic} whose committed offset in {@code group} is short of their end offset. */
    private static int behind(BenchEnvironment env, String topic, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                env.kafka.bootstrapServers()))) {
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

    /** Produces {@code n} records with a {@code message-id} header, acknowledged; returns the ids. */
    private static Set<String> produce(BenchEnvironment env, String topic, BenchOptions o, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // A fresh topic's leaders may not be elected when the first batch goes out; an idempotent producer then
        // failed with OutOfOrderSequence. Without idempotence a retried batch may land twice, which the inbox
        // absorbs as a duplicate record (an effect is counted once per id either way).
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        Set<String> ids = new HashSet<>(n * 2);
        byte[] payload = ("{\"x\":\"" + "x".repeat(Math.max(0, o.payloadBytes() - 8)) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String key = "key-" + (i % KEYS);
                String id = key + "/" + UUID.randomUUID(); // the key in the id: the failing key's ids are known
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

    /**
     * The webhook's reference: the receiver alone, driven at the consumer's concurrency by the same HTTP client stack
     * the webhook handler uses (WebClient on reactor-netty, a pool of {@code concurrency} connections) with the
     * same payload, after a short warm-up.
     */
    static double receiverCeiling(WebhookReceiver receiver, int concurrency, int requests) {
        ConnectionProvider connections = ConnectionProvider.builder("bench-ceiling").maxConnections(concurrency)
                .pendingAcquireMaxCount(-1).build();
        WebClient client = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections))).build();
        byte[] body = "{\"x\":\"ceiling\"}".getBytes(StandardCharsets.UTF_8);
        try {
            post(client, receiver.url("/ceiling"), body, concurrency, Math.min(2_000, requests));
            long start = System.nanoTime();
            long done = post(client, receiver.url("/ceiling"), body, concurrency, requests);
            double rate = done / ((System.nanoTime() - start) / 1e9);
            System.out.printf(Locale.ROOT, "receiver ceiling: %d POSTs at concurrency %d, %d ms each: %.0f/s%n",
                    done, concurrency, receiver.delay().toMillis(), rate);
            return rate;
        } finally {
            connections.disposeLater().block(Duration.ofSeconds(10)); // main thread
        }
    }

    private static long post(WebClient client, String url, byte[] body, int concurrency, int requests) {
        Long ok = Flux.range(0, requests)
                .flatMap(i -> client.post().uri(url).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                        .exchangeToMono(response -> response.releaseBody().thenReturn(response.statusCode().value()))
                        .timeout(Duration.ofSeconds(10)), concurrency)
                .filter(status -> status == 200)
                .count()
                .block(Duration.ofMinutes(5)); // the harness's main thread waits for its own load
        return ok == null ? 0 : ok;
    }

    /**
     * The in-process handler's reference: PostgreSQL's own one-row durable INSERT transactions at the same
     * concurrency, from plain JDBC threads.
     */
    static double transactionCeiling(BenchEnvironment env, int concurrency, int transactions) throws Exception {
        String schema = env.schema("txceiling");
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bench_effect (message_id text NOT NULL, created_at timestamptz NOT NULL"
                    + " DEFAULT now())");
        }
        int perThread = Math.max(1, transactions / concurrency);
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < concurrency; t++) {
            Thread thread = new Thread(() -> {
                try (Connection c = env.jdbc(schema); PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO bench_effect (message_id) VALUES (?)")) {
                    c.setAutoCommit(false);
                    for (int i = 0; i < perThread; i++) {
                        insert.setString(1, UUID.randomUUID().toString());
                        insert.executeUpdate();
                        c.commit();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double rate = perThread * (double) concurrency / ((System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "transaction ceiling: %d one-row durable transactions at concurrency %d:"
                + " %.0f/s%n", perThread * concurrency, concurrency, rate);
        return rate;
    }

    private static long count(BenchEnvironment env, String schema, String sql) {
        try (Connection c = env.jdbc(schema)) {
            return count(c, sql);
        } catch (Exception e) {
            return -1;
        }
    }

    private static long count(Connection c, String sql) {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * The in-process handler: one row per message, in the message's transaction; a transient failure for every
     * record of {@code failingKey} (null: none).
     */
    static final class InsertOneRow implements InboxHandler {

        private final String failingKey;

        InsertOneRow(String failingKey) {
            this.failingKey = failingKey;
        }

        @Override
        public String name() {
            return "bench-sql";
        }

        @Override
        public Mono<Void> handle(InboxMessage message, HandlerContext context) {
            if (failingKey != null && failingKey.equals(message.key())) {
                return Mono.error(new IllegalStateException("the failing key's downstream is down"));
            }
            return Flux.from(context.connection().createStatement(
                            "INSERT INTO bench_effect (message_id, message_key) VALUES ($1, $2)")
                            .bind("$1", message.id().value()).bind("$2", message.key()).execute())
                    .flatMap(result -> result.getRowsUpdated())
                    .then();
        }
    }
}
