package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TcpProxy;
import dev.dispatcher.testkit.TestServers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * One service draining two PostgreSQL servers ({@code dispatcher.sources}): the shared server is the {@code default}
 * source, a second embedded server of this class's own is source {@value #SHARD}, reached through the kit's TCP
 * proxy so the test can cut it off. Rows are written straight into each database; what was delivered is read from
 * Kafka and from the databases through fresh JDBC connections (the second server directly, not through the proxy).
 */
class ManySourcesIT {

    static final String SHARD = "shard-b";

    private static final PostgresServer DEFAULT_SERVER = TestServers.postgres();
    private static EmbeddedPostgresServer second;
    private static TcpProxy proxy;
    private static String schema;
    private static ConfigurableApplicationContext context;
    private static WebhookSink webhook;
    private static String inboxTopic;
    static String baseUrl;

    @BeforeAll
    static void startTwoSources() {
        second = EmbeddedPostgresServer.fast();
        proxy = TcpProxy.start(second.host(), second.port());
        schema = "many_sources_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Map<String, Object> properties = DispatcherTestProperties.forSchema(schema);
        properties.put("dispatcher.worker-id", "many-sources-it");
        properties.put("dispatcher.relay.poll-interval", "200ms");
        properties.put("dispatcher.relay.lease-duration", "3s");
        // small batches: the drain of the shard lasts long enough to be cut in the middle
        properties.put("dispatcher.relay.batch-size", "20");
        properties.put("dispatcher.sources[0].name", SHARD);
        properties.put("dispatcher.sources[0].url", "r2dbc:postgresql://" + proxy.host() + ":" + proxy.port() + "/"
                + second.database());
        properties.put("dispatcher.sources[0].username", second.username());
        properties.put("dispatcher.sources[0].password", second.password());
        // an inbox consumer whose table lives in the shard
        webhook = WebhookSink.start();
        inboxTopic = topic("inbox");
        properties.put("dispatcher.inbox.consumers[0].name", "shard-consumer");
        properties.put("dispatcher.inbox.consumers[0].topics[0]", inboxTopic);
        properties.put("dispatcher.inbox.consumers[0].webhook.url", webhook.url().toString());
        properties.put("dispatcher.inbox.consumers[0].source", SHARD);
        properties.put("spring.kafka.consumer.auto-offset-reset", "earliest");
        properties.put("dispatcher.security.users[0].name", "operator");
        properties.put("dispatcher.security.users[0].password", "{noop}operator-pw");
        properties.put("dispatcher.security.users[0].roles", "OPERATOR,PRODUCER");
        context = DispatcherTestProperties.start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (webhook != null) {
            webhook.close();
        }
        if (second != null) {
            second.close();
        }
    }

    @Test
    void rowsInBothSourcesAreAllDeliveredOnce() throws Exception {
        String topic = topic("both");
        List<String> inDefault = insert(DEFAULT_SERVER, topic, 300);
        List<String> inShard = insert(second, topic, 300);

        eventually("every row of both sources delivered").until(() -> delivered(DEFAULT_SERVER, inDefault) == 300
                && delivered(second, inShard) == 300);

        Map<String, Long> published = publishedIds(topic, 600);
        assertThat(published.keySet()).containsExactlyInAnyOrderElementsOf(concat(inDefault, inShard));
        assertThat(published.values()).as("each published once").allMatch(times -> times == 1);

        MeterRegistry meters = context.getBean(MeterRegistry.class);
        for (String source : List.of("default", SHARD)) {
            assertThat(meters.get("dispatcher.messages").tag("queue", "outbox").tag("result", "published")
                    .tag("source", source).counter().count()).as("published from " + source)
                    .isGreaterThanOrEqualTo(300);
            assertThat(meters.get("dispatcher.queue.depth").tag("queue", "outbox").tag("status", "pending")
                    .tag("source", source).gauge()).as("the backlog gauge of " + source).isNotNull();
        }
        http().get().uri("/v1/stats").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.source").isEqualTo("default")
                .jsonPath("$.sources[0].name").isEqualTo("default")
                .jsonPath("$.sources[1].name").isEqualTo(SHARD)
                .jsonPath("$.sources[1].available").isEqualTo(true)
                .jsonPath("$.sources[1].relayPaused").isEqualTo(false);
    }

    @Test
    void aSourceCutOffMidDrainCostsOnlyItsOwnRowsAndRejoinsByItself() throws Exception {
        String topic = topic("cut");
        List<String> inShard = shardDrainBegun(topic);
        proxy.cut();
        try {
            long deliveredAtCut = delivered(second, inShard);
            assertThat(deliveredAtCut).as("cut in the middle of the shard's drain").isLessThan(inShard.size());

            theDefaultSourceDrainsWhileTheShardIsDown("cut-default");
            assertThat(delivered(second, inShard)).as("the shard's drain did not finish while cut off")
                    .isLessThan(inShard.size());
            http().get().uri("/v1/stats").exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.backlogTotal").isEqualTo(0)
                    .jsonPath("$.sources[0].available").isEqualTo(true)
                    .jsonPath("$.sources[1].name").isEqualTo(SHARD)
                    .jsonPath("$.sources[1].available").isEqualTo(false);
            http().get().uri("/v1/stats?source=" + SHARD).exchange().expectStatus().isEqualTo(503);
        } finally {
            proxy.restore();
        }

        eventually("the shard's rows delivered after it returns")
                .until(() -> delivered(second, inShard) == inShard.size());
        Map<String, Long> published = publishedCovering(topic, inShard);
        assertThat(published.keySet()).as("0 lost").containsAll(inShard);
        assertThat(count(second, "status <> 'DELIVERED'")).as("nothing dead-lettered or left behind").isZero();
    }

    @Test
    void aSourceThatStopsAnsweringMidDrainCostsOnlyItsOwnRows() throws Exception {
        String topic = topic("frozen");
        List<String> inShard = shardDrainBegun(topic);
        try {
            // every process of the shard's server stopped: connections stay open, statements never answer
            second.freeze();
            theDefaultSourceDrainsWhileTheShardIsDown("frozen-default");
            http().get().uri("/v1/stats").exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.sources[0].available").isEqualTo(true)
                    .jsonPath("$.sources[1].available").isEqualTo(false);
        } finally {
            second.thaw();
        }
        eventually("the shard's rows delivered once it answers again")
                .until(() -> delivered(second, inShard) == inShard.size());
        assertThat(publishedCovering(topic, inShard).keySet()).as("0 lost").containsAll(inShard);
    }

    @Test
    void ingestWritesToTheNamedSourceAndOperatorPathsReadTheSourceOfTheirParameter() throws Exception {
        String topic = topic("ingest");
        String id = java.util.UUID.randomUUID().toString();
        http().post().uri("/v1/sources/" + SHARD + "/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"type\":\"T\",\"payload\":{}}")
                .exchange().expectStatus().isAccepted();
        String batchId = java.util.UUID.randomUUID().toString();
        http().post().uri("/v1/sources/" + SHARD + "/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[{\"id\":\"" + batchId + "\",\"topic\":\"" + topic + "\",\"type\":\"T\",\"payload\":{}}]")
                .exchange().expectStatus().isAccepted();

        assertThat(count(second, "id IN ('" + id + "', '" + batchId + "')")).as("written to the shard").isEqualTo(2);
        assertThat(count(DEFAULT_SERVER, "id IN ('" + id + "', '" + batchId + "')")).as("not to the default source")
                .isZero();
        eventually("delivered from the shard").until(() -> delivered(second, List.of(id, batchId)) == 2);
        assertThat(publishedIds(topic, 2).keySet()).containsExactlyInAnyOrder(id, batchId);

        http().get().uri("/v1/messages/" + id + "?source=" + SHARD).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("DELIVERED");
        http().get().uri("/v1/messages/" + id).exchange().expectStatus().isNotFound();
        http().get().uri("/v1/stats?source=" + SHARD).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.relayPaused").isEqualTo(false);
    }

    @Test
    void anUnknownSourceIsA404Problem() {
        http().post().uri("/v1/sources/nope/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"topic\":\"t\",\"type\":\"T\",\"payload\":{}}")
                .exchange().expectStatus().isNotFound()
                .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody().jsonPath("$.type").isEqualTo("https://dispatcher.dev/problems/not-found")
                .jsonPath("$.detail").value(detail -> assertThat(detail.toString()).contains("nope", SHARD));
        http().get().uri("/v1/stats?source=nope").exchange().expectStatus().isNotFound()
                .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON);
        http().post().uri("/v1/relay/pause?source=nope").contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isNotFound();
    }

    @Test
    void pausingOneSourceLeavesTheOthersDraining() throws Exception {
        http().post().uri("/v1/relay/pause?source=" + SHARD).contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.relayPaused").isEqualTo(true);
        try {
            String topic = topic("pause");
            List<String> inShard = insert(second, topic, 50);
            List<String> inDefault = insert(DEFAULT_SERVER, topic, 50);
            eventually("the default source drains").until(() -> delivered(DEFAULT_SERVER, inDefault) == 50);
            http().get().uri("/v1/stats?source=" + SHARD).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.relayPaused").isEqualTo(true);
            assertThat(delivered(second, inShard)).as("the paused shard claims nothing").isZero();
            http().post().uri("/v1/relay/resume?source=" + SHARD).contentType(MediaType.APPLICATION_JSON).exchange()
                    .expectStatus().isOk();
            eventually("the shard drains once resumed").until(() -> delivered(second, inShard) == 50);
        } finally {
            http().post().uri("/v1/relay/resume?source=" + SHARD).contentType(MediaType.APPLICATION_JSON).exchange();
        }
    }

    @Test
    void anInboxConsumerStoresItsRecordsInTheSourceItNames() throws Exception {
        List<String> ids = insert(DEFAULT_SERVER, inboxTopic, 20);
        for (String id : ids) {
            assertThat(webhook.await(id, Duration.ofSeconds(60))).as("handled " + id).isPresent();
        }
        eventually("completed in the shard's inbox").until(() -> count(second, "inbox_message",
                "consumer_name = 'shard-consumer' AND status = 'COMPLETED'") == ids.size());
        assertThat(count(DEFAULT_SERVER, "inbox_message", "true")).as("nothing in the default source's inbox")
                .isZero();
        http().get().uri("/v1/inbox/consumers").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.items[0].name").isEqualTo("shard-consumer")
                .jsonPath("$.items[0].source").isEqualTo(SHARD);
        http().get().uri("/v1/inbox/shard-consumer/dead-letters").exchange().expectStatus().isOk().expectBody()
                .jsonPath("$.items").isEmpty();
        assertThat(context.getBean(MeterRegistry.class).get("dispatcher.messages").tag("queue", "inbox")
                .tag("result", "succeeded").tag("source", SHARD).counter().count()).isEqualTo(ids.size());
    }

    // ---- helpers

    /** 4000 rows in the shard, returned once the relay has delivered the first of them. */
    private static List<String> shardDrainBegun(String topic) throws Exception {
        List<String> inShard = insert(second, topic, 4000);
        eventually("the shard's drain has begun").pollInterval(Duration.ofMillis(5))
                .until(() -> delivered(second, inShard) > 0);
        return inShard;
    }

    /** 500 rows in the default source, all delivered and on Kafka exactly once while the shard does not answer. */
    private static void theDefaultSourceDrainsWhileTheShardIsDown(String prefix) throws Exception {
        String topic = topic(prefix);
        List<String> inDefault = insert(DEFAULT_SERVER, topic, 500);
        eventually("the default source's rows all delivered while the shard is down")
                .until(() -> delivered(DEFAULT_SERVER, inDefault) == inDefault.size());
        Map<String, Long> published = publishedIds(topic, inDefault.size());
        assertThat(published.keySet()).as("on Kafka while the shard is down")
                .containsExactlyInAnyOrderElementsOf(inDefault);
        assertThat(published.values()).as("each once").allMatch(times -> times == 1);
    }

    static WebTestClient http() {
        return WebTestClient.bindToServer().baseUrl(baseUrl).responseTimeout(Duration.ofSeconds(30))
                .defaultHeaders(h -> h.setBasicAuth("operator", "operator-pw")).build();
    }

    static String topic(String prefix) {
        String topic = "many-sources-" + prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current()
                .nextInt());
        TestServers.kafka().createTopic(topic, 4);
        return topic;
    }

    static ConditionFactory eventually(String what) {
        return Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100));
    }

    /** Inserts {@code n} rows over 16 keys as an application would; returns their ids. */
    static List<String> insert(PostgresServer server, String topic, int n) throws SQLException {
        return OutboxTestRows.insert(server, schema, topic, n);
    }

    static long delivered(PostgresServer server, List<String> ids) throws SQLException {
        return OutboxTestRows.delivered(server, schema, ids);
    }

    static long count(PostgresServer server, String where) throws SQLException {
        return count(server, "outbox_message", where);
    }

    static long count(PostgresServer server, String table, String where) throws SQLException {
        try (Connection c = server.openConnection(schema); PreparedStatement q = c.prepareStatement(
                "SELECT count(*) FROM " + table + " WHERE " + where); ResultSet rows = q.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** How often each message id was published to {@code topic}, reading at least {@code expected} records. */
    static Map<String, Long> publishedIds(String topic, int expected) {
        List<ConsumerRecord<String, byte[]>> records = TestServers.kafka().consume(topic, expected,
                Duration.ofSeconds(30));
        Map<String, Long> ids = new HashMap<>();
        records.forEach(r -> ids.merge(new String(r.headers().lastHeader("message-id").value(),
                StandardCharsets.UTF_8), 1L, Long::sum));
        return ids;
    }

    /**
     * The ids published to {@code topic}, reading on past duplicates (a batch published just before its source was
     * cut off is published again after its lease ran out: at least once) until every one of {@code ids} is seen or
     * no more records come.
     */
    static Map<String, Long> publishedCovering(String topic, List<String> ids) {
        int expected = ids.size();
        while (true) {
            Map<String, Long> published = publishedIds(topic, expected);
            long records = published.values().stream().mapToLong(Long::longValue).sum();
            long missing = ids.stream().filter(id -> !published.containsKey(id)).count();
            if (missing == 0 || records < expected) {
                return published;
            }
            expected = (int) records + (int) missing;
        }
    }

    private static Set<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).collect(Collectors.toSet());
    }
}
