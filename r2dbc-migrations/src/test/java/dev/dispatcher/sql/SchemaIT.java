package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/** The migrations on real PostgreSQL: idempotent, defaults, constraints, asynchronous claims and wake-ups. */
class SchemaIT {

    private static PostgresServer postgres;

    @BeforeAll
    static void start() {
        postgres = TestServers.postgres();
    }

    private static Flyway flyway(String schema) {
        return Flyway.configure()
                .dataSource(postgres.jdbcUrl(), postgres.username(), postgres.password())
                .schemas(schema)
                .defaultSchema(schema)
                .table(Migrations.HISTORY_TABLE)
                .locations(Migrations.LOCATION)
                .load();
    }

    @Test
    void migratesFromEmptyAndMigratingAgainIsANoOp() throws SQLException {
        String schema = "schema_it_" + Long.toHexString(System.nanoTime());
        MigrateResult first = flyway(schema).migrate();
        MigrateResult second = flyway(schema).migrate();

        assertThat(first.migrationsExecuted).isGreaterThanOrEqualTo(1);
        assertThat(second.migrationsExecuted).isZero();
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            ResultSet tables = s.executeQuery("""
                    SELECT table_name FROM information_schema.tables WHERE table_schema = '%s' ORDER BY table_name
                    """.formatted(schema));
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            assertThat(names).containsExactly("dispatch_audit", "dispatcher_control", "dispatcher_schema_history",
                    "inbox_message", "outbox_message");
            ResultSet options = s.executeQuery("""
                    SELECT c.relname::text, array_to_string(c.reloptions, ',') FROM pg_class c
                      JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = '%s' AND c.relname IN ('outbox_message', 'inbox_message') ORDER BY 1
                    """.formatted(schema));
            List<String> fillfactors = new ArrayList<>();
            while (options.next()) {
                fillfactors.add(options.getString(1) + " " + options.getString(2));
            }
            // a claim's new row version stays on its page (a HOT update) while half the page is free (V1, V7)
            assertThat(fillfactors).containsExactly("inbox_message fillfactor=50", "outbox_message fillfactor=50");
        }
    }

    @Test
    void applicationInsertNeedsOnlyTopicEventTypeAndPayload() throws SQLException {
        try (Connection c = MigratedSchemas.open("defaults"); Statement s = c.createStatement()) {
            ResultSet row = s.executeQuery("""
                    INSERT INTO outbox_message (topic, event_type, payload) VALUES ('orders', 'OrderPlaced', '\\x7b7d')
                    RETURNING id, seq, status, attempts, version, content_type, headers::text, visible_after <= now()
                    """);
            assertThat(row.next()).isTrue();
            assertThat(row.getString("id")).hasSize(36);
            assertThat(row.getLong("seq")).isPositive();
            assertThat(row.getString("status")).isEqualTo("PENDING");
            assertThat(row.getInt("attempts")).isZero();
            assertThat(row.getLong("version")).isZero();
            assertThat(row.getString("content_type")).isEqualTo("application/json");
            assertThat(row.getString("headers")).isEqualTo("{}");
            assertThat(row.getBoolean(8)).isTrue();
        }
    }

    @Test
    void constraintsRejectBadRows() throws SQLException {
        try (Connection c = MigratedSchemas.open("constraints"); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute(
                    "INSERT INTO outbox_message (topic, event_type, payload, status)"
                            + " VALUES ('t', 'e', '\\x00', 'SENT')"))
                    .hasMessageContaining("outbox_message_status_check");
            assertThatThrownBy(() -> s.execute(
                    "INSERT INTO outbox_message (topic, event_type, payload, attempts) VALUES ('t', 'e', '\\x00', -1)"))
                    .hasMessageContaining("outbox_message_attempts_check");
            assertThatThrownBy(() -> s.execute(
                    "INSERT INTO outbox_message (topic, event_type, payload) VALUES ('', 'e', '\\x00')"))
                    .hasMessageContaining("outbox_message_topic_check");
            assertThatThrownBy(() -> s.execute("""
                    INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                               source_offset, payload, status)
                    VALUES ('c', 'm', 't', 0, 0, '\\x00', 'DELIVERED')
                    """))
                    .hasMessageContaining("inbox_message_status_check");
        }
    }

    @Test
    void claimsCommitAsynchronouslyAndOnlyThemselves() throws SQLException {
        try (Connection c = MigratedSchemas.open("asyncclaim"); Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 't', CASE WHEN g % 2 = 0 THEN 'a' END, 'E', '\\x00' FROM generate_series(1, 4) g
                    """);
            s.execute("""
                    INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                               source_offset, message_key, payload)
                    VALUES ('c', 'm', 't', 0, 0, NULL, '\\x00'), ('c', 'm2', 't', 0, 1, 'k', '\\x00')
                    """);
            s.execute("PREPARE per_key(text, bigint, int, text, bigint, text) AS " + OutboxSql.CLAIM_PER_KEY);
            s.execute("PREPARE unordered(text, bigint, int, bigint) AS " + OutboxSql.CLAIM_UNORDERED);
            s.execute("PREPARE inbox(text, text, bigint, int) AS " + InboxSql.CLAIM);
            s.execute("PREPARE inbox_per_key(text, bigint, int, bytea, text, int) AS " + InboxSql.CLAIM_PER_KEY);
            s.execute("SET synchronous_commit = on"); // the test server's default is off
            c.setAutoCommit(false);
            for (String claim : List.of("EXECUTE per_key('w', 60000, 1, '', 1024, '')",
                    "EXECUTE unordered('w', 60000, 1, 1024)", "EXECUTE inbox('c', 'w', 60000, 1)",
                    "EXECUTE inbox_per_key('w2', 60000, 1, '\\x'::bytea, 'c', 1)")) {
                assertThat(MigratedSchemas.seqs(s.executeQuery(claim))).as(claim).hasSize(1);
                assertThat(setting(s)).as("inside the transaction of " + claim).isEqualTo("off");
                c.commit();
                assertThat(setting(s)).as("after the commit of " + claim).isEqualTo("on");
                c.commit();
            }
        }
    }

    private static String setting(Statement s) throws SQLException {
        try (ResultSet r = s.executeQuery("SELECT current_setting('synchronous_commit')")) {
            r.next();
            return r.getString(1);
        }
    }

    /**
     * Wake-ups (V2): one notification per transaction, sent when it commits; a transaction committing while another
     * holds the schema's notifier lock skips its own and does not wait, so notifying writers never queue behind each
     * other's flushes.
     */
    @Test
    void insertsNotifyOncePerCommittedTransactionAndSkipWhileAnotherIsNotifying() throws SQLException {
        String schema = postgres.createSchema("notify");
        try (Connection listener = postgres.openConnection(); Connection writer = postgres.openConnection(schema);
             Connection notifier = postgres.openConnection()) {
            PGConnection pg = listener.unwrap(PGConnection.class);
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN dispatcher_outbox");
            }
            try (Statement s = writer.createStatement()) {
                writer.setAutoCommit(false);
                s.execute("INSERT INTO outbox_message (topic, event_type, payload) VALUES ('t', 'E', '\\x01')");
                s.execute("INSERT INTO outbox_message (topic, event_type, payload) SELECT 't', 'E', '\\x02' "
                        + "FROM generate_series(1, 3)");
                assertThat(notifications(pg, 300)).as("nothing before commit").isEmpty();
                writer.commit();
                assertThat(notifications(pg, 2000)).as("one per transaction, naming the schema")
                        .containsExactly(schema);

                // Another transaction is committing: it holds the notifier lock and its notification will wake
                // the relay. This commit skips its own and does not wait for the lock.
                try (Statement n = notifier.createStatement()) {
                    notifier.setAutoCommit(false);
                    n.execute("SELECT pg_advisory_xact_lock(hashtextextended('dispatcher_notify:" + schema
                            + "', 7352))");
                    s.execute("INSERT INTO outbox_message (topic, event_type, payload) VALUES ('t', 'E', '\\x03')");
                    writer.commit();
                    assertThat(notifications(pg, 500)).as("skipped while another notifies").isEmpty();
                    notifier.rollback();
                }
                s.execute("INSERT INTO outbox_message (topic, event_type, payload) VALUES ('t', 'E', '\\x04')");
                writer.commit();
                assertThat(notifications(pg, 2000)).containsExactly(schema);

                // One transaction writing two Dispatcher schemas wakes the relays of both.
                String other = postgres.createSchema("notify_other");
                s.execute("INSERT INTO outbox_message (topic, event_type, payload) VALUES ('t', 'E', '\\x05')");
                s.execute("INSERT INTO " + other + ".outbox_message (topic, event_type, payload)"
                        + " VALUES ('t', 'E', '\\x06')");
                writer.commit();
                assertThat(notifications(pg, 2000)).containsExactlyInAnyOrder(schema, other);
            }
            try (Connection fresh = postgres.openConnection(); Statement s = fresh.createStatement();
                 ResultSet r = s.executeQuery("SELECT count(*) FROM " + schema + ".outbox_message")) {
                r.next();
                assertThat(r.getLong(1)).as("every row committed").isEqualTo(7);
            }
        }
    }

    /** Payloads of the notifications that arrive within {@code millis} (waits for the first, then drains). */
    private static List<String> notifications(PGConnection pg, int millis) throws SQLException {
        PGNotification[] first = pg.getNotifications(millis);
        List<String> payloads = new ArrayList<>();
        if (first != null) {
            Arrays.stream(first).map(PGNotification::getParameter).forEach(payloads::add);
            PGNotification[] more = pg.getNotifications(200);
            if (more != null) {
                Arrays.stream(more).map(PGNotification::getParameter).forEach(payloads::add);
            }
        }
        return payloads;
    }
}
