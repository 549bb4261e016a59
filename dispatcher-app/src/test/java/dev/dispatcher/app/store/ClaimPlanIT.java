package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.sql.InboxSql;
import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import java.sql.ResultSet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * The claims' plans on a table PostgreSQL has never analysed, with a backlog far larger than a batch: the state
 * of a new table that receives a burst, where the planner estimates a handful of live rows. In autocommit it then
 * reads and sorts the whole backlog with a bitmap scan on every claim; the store's claim scope
 * ({@link Connections#inIndexOrder}) must get the index scan that stops after the rows it takes. Autovacuum is off
 * for these tables so that no analysis runs during the test.
 */
class ClaimPlanIT {

    private static final int BACKLOG = 20_000;
    private static final int LIMIT = 100;

    private static StoreTestDb db;

    @BeforeAll
    static void neverAnalysedBacklogs() throws Exception {
        db = new StoreTestDb("claimplan");
        db.exec("ALTER TABLE outbox_message SET (autovacuum_enabled = false)");
        db.exec("ALTER TABLE inbox_message SET (autovacuum_enabled = false)");
        db.exec("""
                INSERT INTO outbox_message (topic, message_key, event_type, payload)
                SELECT 'plan-topic', 'key-' || (g % 64), 'TestEvent', convert_to(repeat('x', 256), 'UTF8')
                  FROM generate_series(1, ?) g
                """, BACKLOG);
        db.exec("""
                INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,
                                           event_type, payload)
                SELECT 'plan', 'msg-' || g, 'plan-topic', 0, g, 'TestEvent', convert_to(repeat('x', 256), 'UTF8')
                  FROM generate_series(1, ?) g
                """, BACKLOG);
        // every row once leased and released, as a backlog that has been worked on: each row's second version
        // (the pages are full, so not a HOT update) adds index entries the planner sees as a larger index
        db.exec("UPDATE outbox_message SET attempts = attempts + 1, lease_until = NULL");
        db.exec("UPDATE inbox_message SET attempts = attempts + 1, lease_until = NULL");
        try (var c = db.jdbc(); var s = c.createStatement(); ResultSet r = s.executeQuery("""
                SELECT count(*) FROM pg_stat_user_tables
                 WHERE schemaname = current_schema() AND relname IN ('outbox_message', 'inbox_message')
                   AND last_analyze IS NULL AND last_autoanalyze IS NULL
                """)) {
            r.next();
            assertThat(r.getInt(1)).as("both tables never analysed").isEqualTo(2);
        }
    }

    @AfterAll
    static void closeDb() {
        db.close();
    }

    @Test
    void theUnorderedOutboxClaimReadsTheLiveIndexInSeqOrder() {
        List<String> plan = explainInClaimScope("EXPLAIN " + OutboxSql.CLAIM_UNORDERED, "plan-owner", 30_000L, LIMIT,
                64L * 1024 * 1024);

        assertThat(String.join("\n", plan))
                .contains("Index Scan using outbox_message_live")
                .doesNotContain("Bitmap");
        // the one sort is of the locked rows, for the byte budget's running sum: LockRows promises no order (a row
        // may be re-read in a newer version), so the planner sorts its at most $3 rows again by seq
        assertThat(plan).filteredOn(line -> line.contains("Sort Key")).singleElement().asString()
                .contains("Sort Key: l.seq");
    }

    @Test
    void theInboxClaimReadsTheConsumersLiveIndexInSeqOrder() {
        List<String> plan = explainInClaimScope("EXPLAIN " + InboxSql.CLAIM, "plan", "plan-owner", 30_000L, LIMIT);

        assertThat(String.join("\n", plan))
                .contains("Index Scan using inbox_message_live_idx")
                .doesNotContain("Bitmap")
                .doesNotContain("Sort");
    }

    @Test
    void inAutocommitTheSamePlannerReadsTheWholeBacklog() {
        // the premise of the scope: without it this table state gets the bitmap scan and a sort of every live row
        // (the outbox's unordered claim; since V6 the inbox's reads its live index here even in autocommit, and
        // keeps the scope for the states where it would not)
        List<String> plan = Connections.autoCommit(db.pool,
                        c -> explain(c, "EXPLAIN " + OutboxSql.CLAIM_UNORDERED, "plan-owner", 30_000L, LIMIT,
                                64L * 1024 * 1024))
                .collectList().block(StoreTestDb.BLOCK);

        assertThat(String.join("\n", plan)).contains("Bitmap Heap Scan on outbox_message").contains("Sort");
    }

    @Test
    void aClaimInTheScopeCommitsItsLeasesAndTakesTheOldestRows() throws Exception {
        List<ClaimedOutboxMessage> batch = db.store().claimBatch("plan-owner", LIMIT, Duration.ofSeconds(30),
                Ordering.NONE).block(StoreTestDb.BLOCK);

        assertThat(batch).hasSize(LIMIT);
        List<Long> oldest = new ArrayList<>();
        try (var c = db.jdbc(); var s = c.createStatement(); ResultSet r = s.executeQuery(
                "SELECT seq FROM outbox_message ORDER BY seq LIMIT " + LIMIT)) {
            while (r.next()) {
                oldest.add(r.getLong(1));
            }
        }
        assertThat(batch).extracting(m -> m.leased().seq()).containsExactlyInAnyOrderElementsOf(oldest);
        try (var c = db.jdbc(); var s = c.createStatement(); ResultSet r = s.executeQuery("""
                SELECT count(*) FROM outbox_message
                 WHERE lease_owner = 'plan-owner' AND lease_until > now() AND attempts = 2
                """)) {
            r.next();
            assertThat(r.getInt(1)).as("leases visible to a fresh connection: committed").isEqualTo(LIMIT);
        }
    }

    private static List<String> explainInClaimScope(String sql, Object... binds) {
        return Connections.inIndexOrder(db.pool, c -> explain(c, sql, binds)).collectList().block(StoreTestDb.BLOCK);
    }

    private static Flux<String> explain(Connection c, String sql, Object... binds) {
        Statement s = c.createStatement(sql);
        for (int i = 0; i < binds.length; i++) {
            s.bind("$" + (i + 1), binds[i]);
        }
        return Flux.from(s.execute()).flatMap(r -> r.map(row -> row.get(0, String.class)));
    }
}
