package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * V8 (the relay's unit of order becomes {@code (topic, key)}) on an outbox that holds rows in every status: pending,
 * leased, waiting to be retried, delivered, dead-lettered, with and without a key, one key in two topics. The
 * migration changes no row, and the claims read the result as each ordering says.
 */
class TopicKeyOrderMigrationIT {

    private final PostgresServer postgres = TestServers.postgres();
    private final String schema = PostgresServer.uniqueSchemaName("v8");

    private Flyway flyway(String target) {
        return Flyway.configure()
                .dataSource(postgres.jdbcUrl(), postgres.username(), postgres.password())
                .schemas(schema)
                .defaultSchema(schema)
                .table(Migrations.HISTORY_TABLE)
                .locations(Migrations.LOCATION)
                .target(target == null ? MigrationVersion.LATEST : MigrationVersion.fromVersion(target))
                .load();
    }

    @AfterEach
    void drop() throws SQLException {
        postgres.dropSchema(schema);
    }

    @Test
    void migratesAnOutboxWithRowsInEveryStatusWithoutChangingThemAndClaimsPerTopicAndKeyAfterwards()
            throws SQLException {
        assertThat(flyway("7").migrate().targetSchemaVersion).isEqualTo("7");
        try (Connection c = postgres.openConnection(schema); Statement s = c.createStatement()) {
            // key k: its head in topic a waits to be retried (seq 1); topic b holds k's rows 2 and 3
            // key d: its head in topic a is dead-lettered (seq 4), its next row pending (seq 5)
            // key l: a row leased by a relay that is still running (seq 6), the next pending (seq 7)
            // delivered history, and rows without a key (pending and delivered)
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, attempts,
                                                visible_after, last_error, lease_owner, lease_token, lease_until,
                                                delivered_at, dead_lettered_at)
                    VALUES ('a', 'k', 'E', '\\x01', 'RETRY_SCHEDULED', 1, now() + interval '1 hour', 'boom',
                            NULL, NULL, NULL, NULL, NULL),
                           ('b', 'k', 'E', '\\x02', 'PENDING', 0, now(), NULL, NULL, NULL, NULL, NULL, NULL),
                           ('b', 'k', 'E', '\\x03', 'PENDING', 0, now(), NULL, NULL, NULL, NULL, NULL, NULL),
                           ('a', 'd', 'E', '\\x04', 'DEAD_LETTERED', 5, now(), 'poison', NULL, NULL, NULL, NULL,
                            now()),
                           ('a', 'd', 'E', '\\x05', 'PENDING', 0, now(), NULL, NULL, NULL, NULL, NULL, NULL),
                           ('a', 'l', 'E', '\\x06', 'PENDING', 1, now(), NULL, 'old-relay', gen_random_uuid(),
                            now() + interval '1 hour', NULL, NULL),
                           ('a', 'l', 'E', '\\x07', 'PENDING', 0, now(), NULL, NULL, NULL, NULL, NULL, NULL),
                           ('a', 'k', 'E', '\\x08', 'DELIVERED', 1, now(), NULL, NULL, NULL, NULL, now(), NULL),
                           ('a', NULL, 'E', '\\x09', 'PENDING', 0, now(), NULL, NULL, NULL, NULL, NULL, NULL),
                           ('b', NULL, 'E', '\\x0a', 'DELIVERED', 1, now(), NULL, NULL, NULL, NULL, now(), NULL)
                    """);
            List<String> before = rows(s);

            assertThat(flyway("8").migrate().migrationsExecuted).isEqualTo(1);

            assertThat(rows(s)).as("no row changed").isEqualTo(before);
            try (ResultSet index = s.executeQuery("""
                    SELECT i.indisvalid, pg_get_indexdef(i.indexrelid) AS def
                      FROM pg_index i
                     WHERE i.indexrelid = 'outbox_message_live_topic_key_idx'::regclass
                    """)) {
                assertThat(index.next()).isTrue();
                assertThat(index.getBoolean("indisvalid")).isTrue();
                assertThat(index.getString("def")).contains("(topic, message_key, seq)");
            }
            try (ResultSet entries = s.executeQuery("""
                    SELECT count(*) FROM outbox_message
                     WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND message_key IS NOT NULL
                    """)) {
                entries.next();
                assertThat(entries.getLong(1)).as("live keyed rows, each once in the new index").isEqualTo(6);
            }

            s.execute("PREPARE across(text, bigint, int, text, bigint) AS "
                    + OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS);
            s.execute("PREPARE per_key(text, bigint, int, text, bigint, text) AS " + OutboxSql.CLAIM_PER_KEY);
            c.setAutoCommit(false);
            List<Integer> acrossTopics = payloads(s.executeQuery("EXECUTE across('w', 60000, 100, '', 1048576)"));
            c.rollback();
            List<Integer> perKey = payloads(s.executeQuery("EXECUTE per_key('w', 60000, 100, '', 1048576, '')"));
            c.rollback();

            // across topics: k waits behind its head in topic a; per (topic, key): k's rows in b go. Both: d moves
            // on past its dead letter, l stays with the relay that leased it, the unkeyed row goes.
            assertThat(acrossTopics).containsExactly(5, 9);
            assertThat(perKey).containsExactly(2, 3, 5, 9);
        }
    }

    /** Every row, every column but the generated id, in seq order, as text. */
    private static List<String> rows(Statement s) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet r = s.executeQuery("SELECT to_jsonb(o) - 'id' FROM outbox_message o ORDER BY seq")) {
            while (r.next()) {
                rows.add(r.getString(1));
            }
        }
        return rows;
    }

    /** The first payload byte of each claimed row, in seq order. */
    private static List<Integer> payloads(ResultSet rows) throws SQLException {
        List<long[]> claimed = new ArrayList<>();
        while (rows.next()) {
            claimed.add(new long[] {rows.getLong("seq"), rows.getBytes("payload")[0]});
        }
        claimed.sort((x, y) -> Long.compare(x[0], y[0]));
        return claimed.stream().map(x -> (int) x[1]).toList();
    }
}
