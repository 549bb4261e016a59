package dev.dispatcher.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.testkit.PgBouncer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Behind a transaction pooler the service refuses to start when what it no longer sends is not given another way,
 * and says what to set (docs/poolers.md): a user whose {@code search_path} does not lead to {@code
 * dispatcher.schema}, or migrations without a direct {@code spring.flyway.url} (for a user that has its {@code
 * search_path}). Through Debian's PgBouncer; skips,
 * saying why, where it is not installed.
 */
class PoolerStartupIT {

    private static final PostgresServer SERVER = TestServers.postgres();

    private static PgBouncer pooler;
    private static String schema;
    private static String role;

    @BeforeAll
    static void startThePooler() throws SQLException {
        schema = SERVER.createSchema("pooler_start");
        role = "pooled_bare_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        pooler = PgBouncer.start(SERVER, 2, role, role + "_ready");
        try (Connection c = SERVER.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE ROLE " + role + " LOGIN SUPERUSER");
            s.execute("CREATE ROLE " + role + "_ready LOGIN SUPERUSER");
            s.execute("ALTER ROLE " + role + "_ready IN DATABASE " + SERVER.database() + " SET search_path = "
                    + schema);
        }
    }

    @AfterAll
    static void stop() throws SQLException {
        if (pooler != null) {
            pooler.close();
        }
        if (role != null) {
            try (Connection c = SERVER.openConnection(); Statement s = c.createStatement()) {
                s.execute("DROP ROLE IF EXISTS " + role);
                s.execute("DROP ROLE IF EXISTS " + role + "_ready");
            }
        }
    }

    @Test
    void withoutTheRoleSearchPathStartUpFailsSayingWhatToTellTheDatabase() {
        Map<String, Object> properties = PoolerIT.pooledProperties(pooler, schema, role);
        assertThatThrownBy(() -> PoolerIT.start(properties).close())
                .hasStackTraceContaining("dispatcher.database.pooler=transaction: sessions through the pooler have"
                        + " search_path")
                .hasStackTraceContaining("ALTER ROLE " + role + " IN DATABASE " + SERVER.database()
                        + " SET search_path = " + schema);
    }

    @Test
    void withoutAListenUrlTheRelayPollsAtItsPollIntervalAndListensNowhere() throws Exception {
        Map<String, Object> properties = PoolerIT.pooledProperties(pooler, schema, role + "_ready");
        properties.put("dispatcher.worker-id", "pooler-polling-it");
        properties.put("dispatcher.relay.poll-interval", "200ms");
        try (ConfigurableApplicationContext context = PoolerIT.start(properties)) {
            String topic = "pooler-polling-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
            TestServers.kafka().createTopic(topic, 1);
            String id;
            try (Connection c = SERVER.openConnection(schema); Statement s = c.createStatement();
                    ResultSet rows = s.executeQuery("INSERT INTO outbox_message (topic, event_type, payload) VALUES ('"
                            + topic + "', 'T', '\\x7b7d') RETURNING id::text")) {
                rows.next();
                id = rows.getString(1);
            }
            Awaitility.await("delivered by a poll").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> count("status = 'DELIVERED' AND id = '" + id + "'") == 1);
            try (Connection c = SERVER.openConnection(); Statement s = c.createStatement();
                    ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE application_name ="
                            + " 'dispatcher-pooler-polling-it' AND query ILIKE 'LISTEN%'")) {
                rows.next();
                assertThat(rows.getLong(1)).as("sessions of the service that LISTEN").isZero();
            }
        }
    }

    private static long count(String where) throws SQLException {
        try (Connection c = SERVER.openConnection(schema); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT count(*) FROM outbox_message WHERE " + where)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void withoutTheDirectFlywayUrlStartUpFailsNamingIt() {
        Map<String, Object> properties = PoolerIT.pooledProperties(pooler, schema, role + "_ready");
        properties.remove("spring.flyway.url");
        properties.remove("spring.flyway.user");
        properties.remove("spring.flyway.password");
        assertThatThrownBy(() -> PoolerIT.start(properties).close())
                .hasStackTraceContaining("spring.flyway.url must be set to a direct connection to PostgreSQL when"
                        + " dispatcher.database.pooler is transaction");
    }
}
