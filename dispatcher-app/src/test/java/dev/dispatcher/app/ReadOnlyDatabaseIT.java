package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A database that turned read-only under a running service, as after a failover while DNS still names the old
 * primary (SQLSTATE 25006): made to happen in a database of its own on the shared server with {@code ALTER DATABASE
 * ... SET default_transaction_read_only = on} and its sessions terminated, so every connection the pool opens next is
 * read-only. Ingest answers {@code 503} with {@code Retry-After} and writes nothing; the relay claims nothing and
 * dead-letters nothing. Then the database turns writable again, without terminating anything: the service recovers
 * by itself only because every connection that saw 25006 was closed instead of going back to the pool (a read-only
 * session stays read-only). Durable state is read through fresh JDBC connections.
 */
class ReadOnlyDatabaseIT {

    private static final PostgresServer POSTGRES = TestServers.postgres();
    private static final String TOKEN = "read-only-it-" + UUID.randomUUID();
    private static final String SCHEMA = "dispatcher";

    private static String database;
    private static String topic;
    private static ConfigurableApplicationContext context;
    private static String baseUrl;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startOnADatabaseOfItsOwn() throws Exception {
        database = "read_only_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        topic = "read-only-" + database;
        try (Connection c = POSTGRES.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        }
        TestServers.kafka().createTopic(topic, 2);
        Map<String, Object> properties = DispatcherTestProperties.forSchema(SCHEMA);
        properties.put("spring.r2dbc.url", "r2dbc:postgresql://" + POSTGRES.host() + ":" + POSTGRES.port() + "/"
                + database);
        properties.put("spring.flyway.url", jdbcUrl());
        properties.put("dispatcher.worker-id", "read-only-it");
        properties.put("dispatcher.relay.poll-interval", "200ms");
        properties.put("dispatcher.security.tokens[0].name", "loader");
        properties.put("dispatcher.security.tokens[0].sha256", HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(TOKEN.getBytes(StandardCharsets.UTF_8))));
        properties.put("dispatcher.security.tokens[0].roles", "PRODUCER");
        context = DispatcherTestProperties.start(properties);
        baseUrl = DispatcherTestProperties.baseUrl(context);
    }

    @AfterAll
    static void stop() throws SQLException {
        if (context != null) {
            context.close();
        }
        try (Connection c = POSTGRES.openConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    @Test
    void readOnlyDatabaseIsATransientFailureThatHealsByItselfOnceWritable() throws Exception {
        UUID before = UUID.randomUUID();
        assertThat(post(before).statusCode()).as("writable: accepted").isEqualTo(202);
        eventually("the first message delivered").until(() -> count("status = 'DELIVERED'") == 1);

        setReadOnly(true);
        int terminated = terminateSessions();
        assertThat(terminated).as("the service's sessions were terminated").isPositive();
        List<UUID> waiting = insertAsWritableSession(20);

        List<HttpResponse<String>> refused = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            refused.add(post(UUID.randomUUID()));
        }
        assertThat(refused).allSatisfy(response -> {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).isPresent();
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
        });
        assertThat(refused).as("named as a read-only database once the terminated sessions are replaced")
                .anySatisfy(response -> assertThat(response.body()).contains("database-read-only"));
        assertThat(count("true")).as("nothing written by the refused requests").isEqualTo(1 + waiting.size());

        // held for ten relay poll intervals with nothing claimable in a read-only database
        Invariants.holdFor("nothing dead-lettered and no attempt spent on a read-only database",
                Duration.ofSeconds(2), Duration.ofMillis(200), () -> {
            assertThat(count("status = 'DEAD_LETTERED'")).as("nothing dead-lettered").isZero();
            assertThat(count("status = 'PENDING' AND attempts = 0"))
                    .as("no attempt spent on a read-only database").isEqualTo(waiting.size());
        });

        // writable again, and no session terminated this time: only connections replaced on 25006 can recover
        setReadOnly(false);
        UUID after = UUID.randomUUID();
        eventually("ingest accepts again").until(() -> post(after).statusCode() == 202);
        eventually("the relay delivers everything")
                .until(() -> count("status = 'DELIVERED'") == 2 + waiting.size());
        assertThat(count("status = 'DEAD_LETTERED'")).isZero();

        Set<String> expected = new HashSet<>();
        waiting.forEach(id -> expected.add(id.toString()));
        expected.add(before.toString());
        expected.add(after.toString());
        Set<String> onKafka = new HashSet<>();
        TestServers.kafka().consume(topic, expected.size(), Duration.ofSeconds(30)).forEach(r -> onKafka.add(
                new String(r.headers().lastHeader("message-id").value(), StandardCharsets.UTF_8)));
        assertThat(onKafka).as("every message published once the database is writable").isEqualTo(expected);
    }

    // ---- helpers

    private static ConditionFactory eventually(String what) {
        return Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200));
    }

    private static HttpResponse<String> post(UUID id) {
        String body = """
                {"id":"%s","topic":"%s","key":"k-%d","type":"ReadOnlyProbe","payload":{"n":1}}"""
                .formatted(id, topic, id.hashCode() % 4);
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/messages"))
                    .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String jdbcUrl() {
        return "jdbc:postgresql://" + POSTGRES.host() + ":" + POSTGRES.port() + "/" + database;
    }

    /** A fresh connection to the test's database that writes whatever the database's default says. */
    private static Connection writable() throws SQLException {
        Connection c = DriverManager.getConnection(jdbcUrl(), POSTGRES.username(), POSTGRES.password());
        try (Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + SCHEMA);
            s.execute("SET default_transaction_read_only = off");
        }
        return c;
    }

    private static void setReadOnly(boolean on) throws SQLException {
        try (Connection c = POSTGRES.openConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + database + " SET default_transaction_read_only = " + (on ? "on" : "off"));
        }
    }

    /** Terminates every session of the test's database (the service's), as a failover does; returns how many. */
    private static int terminateSessions() throws SQLException {
        try (Connection c = POSTGRES.openConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = ?")) {
            s.setString(1, database);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    private static List<UUID> insertAsWritableSession(int n) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (Connection c = writable(); PreparedStatement insert = c.prepareStatement("INSERT INTO outbox_message"
                + " (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, 'Seeded', ?)")) {
            for (int i = 0; i < n; i++) {
                UUID id = UUID.randomUUID();
                insert.setObject(1, id);
                insert.setString(2, topic);
                insert.setString(3, "k-" + (i % 4));
                insert.setBytes(4, "{}".getBytes(StandardCharsets.UTF_8));
                insert.executeUpdate();
                ids.add(id);
            }
        }
        return ids;
    }

    private static long count(String condition) {
        try (Connection c = writable(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM outbox_message WHERE " + condition)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

}
