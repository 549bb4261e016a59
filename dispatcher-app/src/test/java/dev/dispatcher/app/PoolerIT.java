package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.dispatcher.app.inbox.HandlerContext;
import dev.dispatcher.app.inbox.InboxHandler;
import dev.dispatcher.app.inbox.InboxMessage;
import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.testkit.PgBouncer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Result;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The service behind Debian's PgBouncer in transaction pooling mode ({@code dispatcher.database.pooler=transaction},
 * docs/poolers.md): {@code spring.r2dbc.url} at the pooler, Flyway and the relay's {@code LISTEN} straight at the
 * server. The pooler knows only the driver's startup parameters and keeps no named statement, so a connection that
 * sent {@code plan_cache_mode} or {@code search_path}, or a statement prepared under a name, would fail here. The
 * user reaches the pooler as a role of its own whose {@code search_path} the database gives ({@code ALTER ROLE}),
 * as the docs tell operators to. Ingest, the relay, an in-process SQL handler and a webhook handler, the operator
 * API and a retention pass all run through the pooler; nothing is lost and the service logs no error.
 *
 * <p>Skips, saying why, where {@code /usr/sbin/pgbouncer} is not installed ({@code .ci/run} installs it).
 */
class PoolerIT {

    private static final PostgresServer SERVER = TestServers.postgres();
    private static final String HANDLER = "pooled-sql";

    private static PgBouncer pooler;
    private static String schema;
    private static String role;
    private static ConfigurableApplicationContext context;
    private static WebhookSink webhook;
    private static String sqlTopic;
    private static String webhookTopic;
    private static String baseUrl;
    private static ListAppender<ILoggingEvent> errors;

    @BeforeAll
    static void startBehindThePooler() throws Exception {
        schema = SERVER.createSchema("pooler");
        role = "pooled_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        try (Connection c = SERVER.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + schema + ".pooled_effect (message_id text PRIMARY KEY, worker text NOT NULL)");
            s.execute("CREATE ROLE " + role + " LOGIN SUPERUSER");
            // what the service sends as startup parameters on a direct connection, given by the database instead
            for (String setting : List.of("search_path = " + schema, "statement_timeout = '30s'",
                    "lock_timeout = '5s'")) {
                s.execute("ALTER ROLE " + role + " IN DATABASE " + SERVER.database() + " SET " + setting);
            }
        }
        pooler = PgBouncer.start(SERVER, 8, role);
        webhook = WebhookSink.start();
        sqlTopic = topic("sql");
        webhookTopic = topic("webhook");
        Map<String, Object> properties = pooledProperties(pooler, schema, role);
        properties.put("dispatcher.database.listen-url", SERVER.r2dbcUrl());
        properties.put("dispatcher.inbox.consumers[0].name", "pooled-sql");
        properties.put("dispatcher.inbox.consumers[0].topics[0]", sqlTopic);
        properties.put("dispatcher.inbox.consumers[0].handler", HANDLER);
        properties.put("dispatcher.inbox.consumers[1].name", "pooled-webhook");
        properties.put("dispatcher.inbox.consumers[1].topics[0]", webhookTopic);
        properties.put("dispatcher.inbox.consumers[1].webhook.url", webhook.url().toString());
        context = start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
        errors = new ListAppender<>();
        errors.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(errors);
    }

    @AfterAll
    static void stop() throws SQLException {
        if (context != null) {
            context.close();
        }
        if (errors != null) {
            ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(errors);
        }
        if (webhook != null) {
            webhook.close();
        }
        if (pooler != null) {
            pooler.close();
        }
        if (role != null) {
            try (Connection c = SERVER.openConnection(); Statement s = c.createStatement()) {
                s.execute("DROP ROLE IF EXISTS " + role);
            }
        }
    }

    @AfterEach
    void noErrorLogged() {
        assertThat(errors.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                .map(ILoggingEvent::getFormattedMessage).toList()).as("errors the service logged").isEmpty();
        assertThat(pooler.errors()).as("warnings and errors PgBouncer logged").isEmpty();
    }

    @Test
    void ingestedAndWrittenRowsAreAllDeliveredOnceThroughThePooler() throws Exception {
        String topic = topic("relay");
        List<String> written = insert(topic, 1500);
        List<String> ingested = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = UUID.randomUUID().toString();
            http().post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"key\":\"k" + (i % 4)
                            + "\",\"type\":\"T\",\"payload\":{\"i\":" + i + "}}")
                    .exchange().expectStatus().isAccepted();
            ingested.add(id);
        }
        List<String> all = new ArrayList<>(written);
        all.addAll(ingested);

        eventually("every row delivered").until(() -> delivered(all) == all.size());
        Map<String, Long> published = publishedIds(topic, all.size());
        assertThat(published.keySet()).as("0 lost").containsExactlyInAnyOrderElementsOf(all);
        assertThat(published.values()).as("each once").allMatch(times -> times == 1);
    }

    @Test
    void aNewRowWakesTheRelayOverTheDirectListenConnection() throws Exception {
        String topic = topic("wake");
        // the relay idles on a poll interval of 10s: only a notification delivers within it
        List<String> ids = insert(topic, 1);
        Awaitility.await("delivered on the notification, well before the 10s poll")
                .atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> delivered(ids) == 1);
    }

    @Test
    void theSqlAndWebhookHandlersRunThroughThePooler() throws Exception {
        List<String> toSql = insert(sqlTopic, 200);
        List<String> toWebhook = insert(webhookTopic, 50);
        eventually("the SQL handler's rows written and its inbox rows completed")
                .until(() -> count("pooled_effect", "true") == toSql.size()
                        && count("inbox_message", "consumer_name = 'pooled-sql' AND status = 'COMPLETED'")
                        == toSql.size());
        for (String id : toWebhook) {
            assertThat(webhook.await(id, Duration.ofSeconds(60))).as("posted " + id).isPresent();
        }
        eventually("the webhook consumer's rows completed").until(() -> count("inbox_message",
                "consumer_name = 'pooled-webhook' AND status = 'COMPLETED'") == toWebhook.size());
        assertThat(count("pooled_effect", "worker = 'pooler-it'")).isEqualTo(toSql.size());
    }

    @Test
    void theOperatorApiAndARetentionPassWorkThroughThePooler() throws Exception {
        String topic = topic("operate");
        List<String> ids = insert(topic, 30);
        eventually("delivered").until(() -> delivered(ids) == ids.size());
        http().get().uri("/v1/messages/" + ids.getFirst()).exchange().expectStatus().isOk()
                .expectHeader().exists("ETag")
                .expectBody().jsonPath("$.status").isEqualTo("DELIVERED");
        http().get().uri("/v1/messages?status=DELIVERED&topic=" + topic + "&limit=100").exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.items[0].status").isEqualTo("DELIVERED");
        http().post().uri("/v1/relay/pause").contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.relayPaused").isEqualTo(true);
        http().post().uri("/v1/relay/resume").contentType(MediaType.APPLICATION_JSON).exchange()
                .expectStatus().isOk().expectBody().jsonPath("$.relayPaused").isEqualTo(false);
        http().get().uri("/v1/stats").exchange().expectStatus().isOk();

        // the outbox's retention pass, on the service's own pool through the pooler, keeping nothing delivered
        ConnectionFactory pooled = context.getBean(ConnectionFactory.class);
        Long deleted = Retention.outbox(OutboxStore.r2dbc(pooled, Ordering.PER_KEY), AuditTrail.r2dbc(pooled),
                Duration.ofMillis(1), Duration.ofDays(30), Duration.ofDays(90)).purge().block(Duration.ofSeconds(30));
        assertThat(deleted).as("rows the pass deleted").isGreaterThanOrEqualTo(ids.size());
        assertThat(count("outbox_message", "id::text = ANY('{" + String.join(",", ids) + "}')"))
                .as("delivered rows gone after the pass").isZero();
    }

    // ---- helpers

    /** The service's properties with {@code spring.r2dbc.*} at {@code pooler} as {@code user}, for {@code schema}. */
    static Map<String, Object> pooledProperties(PgBouncer pooler, String schema, String user) {
        Map<String, Object> properties = DispatcherTestProperties.forSchema(schema);
        properties.put("spring.r2dbc.url", pooler.r2dbcUrl());
        properties.put("spring.r2dbc.username", user);
        properties.put("spring.r2dbc.password", pooler.password());
        properties.put("dispatcher.database.pooler", "transaction");
        properties.put("dispatcher.worker-id", "pooler-it");
        properties.put("dispatcher.relay.poll-interval", "10s");
        properties.put("spring.kafka.consumer.auto-offset-reset", "earliest");
        properties.put("dispatcher.security.users[0].name", "operator");
        properties.put("dispatcher.security.users[0].password", "{noop}operator-pw");
        properties.put("dispatcher.security.users[0].roles", "OPERATOR,PRODUCER");
        return properties;
    }

    static ConfigurableApplicationContext start(Map<String, Object> properties) {
        Map<String, Object> all = new HashMap<>(properties);
        all.putIfAbsent("server.port", 0);
        return new SpringApplicationBuilder(DispatcherApplication.class, SqlHandler.class).run(all.entrySet()
                .stream().map(entry -> "--" + entry.getKey() + "=" + entry.getValue()).toArray(String[]::new));
    }

    /** An in-process handler writing one row per message in the message's transaction, through the pooler. */
    @Configuration(proxyBeanMethods = false)
    static class SqlHandler {

        @Bean
        InboxHandler pooledSqlHandler() {
            return new InboxHandler() {
                @Override
                public String name() {
                    return HANDLER;
                }

                @Override
                public Mono<Void> handle(InboxMessage message, HandlerContext handlerContext) {
                    return Flux.from(handlerContext.connection()
                                    .createStatement("INSERT INTO pooled_effect (message_id, worker) VALUES ($1, $2)")
                                    .bind("$1", message.id().value()).bind("$2", handlerContext.workerId())
                                    .execute())
                            .flatMap(Result::getRowsUpdated)
                            .then();
                }
            };
        }
    }

    private static WebTestClient http() {
        return WebTestClient.bindToServer().baseUrl(baseUrl).responseTimeout(Duration.ofSeconds(30))
                .defaultHeaders(h -> h.setBasicAuth("operator", "operator-pw")).build();
    }

    private static String topic(String prefix) {
        String topic = "pooler-" + prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        TestServers.kafka().createTopic(topic, 4);
        return topic;
    }

    private static ConditionFactory eventually(String what) {
        return Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100));
    }

    /** Inserts {@code n} rows over 16 keys as an application would, straight into PostgreSQL; returns their ids. */
    private static List<String> insert(String topic, int n) throws SQLException {
        return OutboxTestRows.insert(SERVER, schema, topic, n);
    }

    private static long delivered(List<String> ids) throws SQLException {
        return OutboxTestRows.delivered(SERVER, schema, ids);
    }

    private static long count(String table, String where) throws SQLException {
        try (Connection c = SERVER.openConnection(schema); PreparedStatement q = c.prepareStatement(
                "SELECT count(*) FROM " + table + " WHERE " + where); ResultSet rows = q.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Map<String, Long> publishedIds(String topic, int expected) {
        List<ConsumerRecord<String, byte[]>> records = TestServers.kafka().consume(topic, expected,
                Duration.ofSeconds(30));
        Map<String, Long> ids = new HashMap<>();
        records.forEach(r -> ids.merge(new String(r.headers().lastHeader("message-id").value(),
                StandardCharsets.UTF_8), 1L, Long::sum));
        return ids;
    }
}
