package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PlanShapes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim and intake statements of the migrated schema on real PostgreSQL: index use on large skewed backlogs and
 * on statistics that saw a drained table, one contiguous run per key, and every key lock taken before a row takes
 * its {@code seq}.
 */
class ClaimPlansIT {

    @Test
    void claimStatementsUseIndexesOnALargeSkewedBacklog() throws SQLException {
        try (Connection c = MigratedSchemas.open("explain"); Statement s = c.createStatement()) {
            // 100,000 live rows: one hot key holds half, 63 keys share the rest; plus delivered history.
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'bench', CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'key-' || (g % 63) END, 'E', '\\x00'
                      FROM generate_series(1, 100000) g
                    """);
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at)
                    SELECT 'bench', 'key-' || (g % 63), 'E', '\\x00', 'DELIVERED', now()
                      FROM generate_series(1, 20000) g
                    """);
            s.execute("ANALYZE outbox_message");

            String unordered = plan(s, "claim_unordered", "text, bigint, int, bigint", OutboxSql.CLAIM_UNORDERED,
                    "'w1', 30000, 500, 67108864");
            String perKey = plan(s, "claim_per_key", "text, bigint, int, text, bigint, text",
                    OutboxSql.CLAIM_PER_KEY, "'w1', 30000, 500, '', 67108864, ''");
            String acrossTopics = plan(s, "claim_per_key_across_topics", "text, bigint, int, text, bigint",
                    OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS, "'w1', 30000, 500, '', 67108864");

            assertThat(unordered).doesNotContain("Seq Scan").contains("outbox_message_live_seq_idx");
            assertThat(perKey).doesNotContain("Seq Scan").contains("outbox_message_live_topic_key_idx")
                    .doesNotContain("outbox_message_live_seq_idx").doesNotContain("outbox_message_live_key_idx");
            assertThat(acrossTopics).doesNotContain("Seq Scan").contains("outbox_message_live_key_idx")
                    .doesNotContain("outbox_message_live_seq_idx").doesNotContain("outbox_message_live_topic_key_idx");
        }
    }

    /**
     * The per-key claim on statistics taken while the outbox was drained, the usual state under steady ingest: before
     * V4 the planner walked the keys and locked the picked rows through {@code outbox_message_live_seq_idx} with a
     * sort on top (few live rows expected), reading every entry of rows delivered since the last vacuum. Since V4
     * that index's predicate has {@code seq > 0}, which the per-key claim never states, so the walk is on the key
     * index; the statements that read live rows by seq still get the seq index.
     */
    @Test
    void perKeyClaimNeverWalksTheSeqIndexWhenStatisticsSawADrainedOutbox() throws SQLException {
        try (Connection c = MigratedSchemas.open("drained"); Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at)
                    SELECT 'bench', 'key-' || (g % 64), 'E', '\\x00', 'DELIVERED', now()
                      FROM generate_series(1, 20000) g
                    """);
            s.execute("ANALYZE outbox_message");
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'bench', 'key-' || (g % 64), 'E', '\\x00'
                      FROM generate_series(1, 5000) g
                    """);

            String perKey = plan(s, "claim_per_key_drained", "text, bigint, int, text, bigint, text",
                    OutboxSql.CLAIM_PER_KEY, "'w1', 30000, 500, '', 67108864, ''");
            String acrossTopics = plan(s, "claim_across_drained", "text, bigint, int, text, bigint",
                    OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS, "'w1', 30000, 500, '', 67108864");
            String bound = plan(s, "backlog_bound_drained", "int", OutboxSql.BACKLOG_BOUND + " LIMIT $1", "1");

            assertThat(perKey).contains("outbox_message_live_topic_key_idx")
                    .doesNotContain("outbox_message_live_seq_idx").doesNotContain("outbox_message_live_key_idx");
            assertThat(acrossTopics).contains("outbox_message_live_key_idx")
                    .doesNotContain("outbox_message_live_seq_idx").doesNotContain("outbox_message_live_topic_key_idx");
            assertThat(bound).contains("outbox_message_live_seq_idx");
        }
    }

    /**
     * The inbox's per-key claim on a consumer's skewed backlog (a hot key holds half, a tenth of the keys are binary,
     * a fifth of the rows have no key) behind completed history, and on statistics taken while the inbox held only
     * completed rows: the walk and each run on the consumer's key index, the lock step by ctid, rows without a key on
     * the unkeyed index; never the live seq index nor the whole table.
     */
    @Test
    void inboxPerKeyClaimUsesTheConsumersKeyIndexOnASkewedBacklogAndOnDrainedStatistics() throws SQLException {
        for (boolean drained : new boolean[] {false, true}) {
            try (Connection c = MigratedSchemas.open(drained ? "inbox_drained" : "inbox_explain");
                    Statement s = c.createStatement()) {
                s.execute("""
                        INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                                   source_offset, message_key, payload, status, completed_at)
                        SELECT CASE WHEN g % 4 = 0 THEN 'other' ELSE 'orders' END, 'done-' || g, 't', 0, g,
                               'key-' || (g % 63), '\\x00', 'COMPLETED', now()
                          FROM generate_series(1, 20000) g
                        """);
                if (drained) {
                    s.execute("ANALYZE inbox_message");
                }
                s.execute("""
                        INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                                   source_offset, message_key, message_key_bytes, payload)
                        SELECT CASE WHEN g % 4 = 0 THEN 'other' ELSE 'orders' END, 'm-' || g, 't', 0, g,
                               CASE WHEN g % 10 IN (1, 3) THEN NULL WHEN g % 2 = 0 THEN 'hot'
                                    ELSE 'key-' || (g % 63) END,
                               CASE WHEN g % 10 = 3 THEN decode('00' || lpad(to_hex(g % 17), 2, '0'), 'hex') END,
                               '\\x00'
                          FROM generate_series(1, ROWS) g
                        """.replace("ROWS", drained ? "5000" : "100000"));
                if (!drained) {
                    s.execute("ANALYZE inbox_message");
                }

                String perKey = plan(s, "inbox_per_key", "text, bigint, int, bytea, text, int", InboxSql.CLAIM_PER_KEY,
                        "'w1', 30000, 500, '\\x'::bytea, 'orders', 32");

                assertThat(perKey).as(perKey).doesNotContain("Seq Scan")
                        .contains("Index Scan using inbox_message_live_key_idx")
                        .contains("Index Scan using inbox_message_live_unkeyed_idx")
                        .contains("Tid Scan on inbox_message")
                        .doesNotContain("inbox_message_live_idx");
                assertThat(PlanShapes.readsAGrowingTableInFull(perKey)).as(perKey).isFalse();
            }
        }
    }

    /**
     * The inbox's per-key claim on a key's rows as the outbox's: one contiguous run from each open head; a binary key
     * is a key like a text one, and a text key and a binary key with other bytes are two keys; rows without a key are
     * taken in seq order; another consumer's rows are never taken.
     */
    @Test
    void inboxPerKeyClaimTakesOneRunPerKeyOfTheConsumerIncludingBinaryKeys() throws SQLException {
        try (Connection c = MigratedSchemas.open("inbox_perkey"); Statement s = c.createStatement()) {
            // seq 1-4: text key 'a'; 5-7: binary key 00 61; 8: no key; 9: another consumer's 'a'; 10: text 'a' again,
            // not visible yet, so 'a's run stops before it
            s.execute("""
                    INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                               source_offset, message_key, message_key_bytes, payload, visible_after)
                    SELECT CASE WHEN g = 9 THEN 'other' ELSE 'orders' END, 'm-' || g, 't', 0, g,
                           CASE WHEN g <= 4 OR g >= 9 THEN 'a' END,
                           CASE WHEN g BETWEEN 5 AND 7 THEN '\\x0061'::bytea END, '\\x00',
                           CASE WHEN g = 11 THEN now() + interval '1 hour' ELSE now() END
                      FROM generate_series(1, 12) g
                    """);
            s.execute("PREPARE claim(text, bigint, int, bytea, text, int) AS " + InboxSql.CLAIM_PER_KEY);

            List<Long> first = MigratedSchemas.seqs(
                    s.executeQuery("EXECUTE claim('w1', 60000, 100, '\\x'::bytea, 'orders', 100)"));
            List<Long> second = MigratedSchemas.seqs(
                    s.executeQuery("EXECUTE claim('w2', 60000, 100, '\\x'::bytea, 'orders', 100)"));

            assertThat(first).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 10L);
            assertThat(second).as("both keys are held by w1's leases").isEmpty();
        }
    }

    /**
     * The inbox's intake with per-key locks ({@code $12}) takes every key lock before any row takes a seq, as
     * {@link #ingestTakesEveryKeyLockBeforeAnyRowTakesASeq} checks for the outbox: rows are inserted, and take their
     * seqs, above the join with the lock row, after the sort by source position.
     */
    @Test
    void inboxIntakeTakesEveryKeyLockBeforeAnyRowTakesASeq() throws SQLException {
        try (Connection c = MigratedSchemas.open("inbox_insert"); Statement s = c.createStatement()) {
            s.execute("PREPARE store(text, text[], text[], int[], bigint[], text[], text[], text[], text[], text[],"
                    + " text[], boolean) AS " + InboxSql.INSERT);
            for (String mode : List.of("force_generic_plan", "force_custom_plan")) {
                s.execute("SET plan_cache_mode = " + mode);
                String text = lines(s, "EXPLAIN (VERBOSE, COSTS OFF) EXECUTE store('c',"
                        + " ARRAY['m1', 'm2'], ARRAY['t', 't'], ARRAY[0, 0], ARRAY[2, 1]::bigint[], ARRAY['k', NULL],"
                        + " ARRAY[NULL, NULL]::text[], ARRAY['{}', '{}'], ARRAY['AA==', 'AA=='],"
                        + " ARRAY[NULL, 'AGs=']::text[], ARRAY[NULL, NULL]::text[], true)");
                int lockCte = text.indexOf("CTE key_lock");
                assertThat(text.indexOf("pg_advisory_xact_lock(")).as(text).isGreaterThan(lockCte);
                int nextval = text.indexOf("nextval(");
                int sort = text.indexOf("Sort Key: r.topic, r.part, r.off");
                int lockScan = text.indexOf("CTE Scan on key_lock");
                assertThat(nextval).as(text).isGreaterThan(lockCte).isLessThan(sort);
                assertThat(sort).as(text).isLessThan(lockScan);
                assertThat(indentation(text, nextval)).as(text).isLessThan(indentation(text, lockScan));
            }
            // the rows of one statement take their seqs in source order
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("EXECUTE store('c', ARRAY['z', 'y', 'x'], ARRAY['t', 't', 't'], ARRAY[0, 0, 0],"
                    + " ARRAY[7, 5, 6]::bigint[], ARRAY['k', 'k', 'k'], ARRAY[NULL, NULL, NULL]::text[],"
                    + " ARRAY['{}', '{}', '{}'], ARRAY['AA==', 'AA==', 'AA=='], ARRAY[NULL, NULL, NULL]::text[],"
                    + " ARRAY[NULL, NULL, NULL]::text[], true)");
            List<Long> offsets = new ArrayList<>();
            try (ResultSet rows = s.executeQuery("SELECT source_offset FROM inbox_message ORDER BY seq")) {
                while (rows.next()) {
                    offsets.add(rows.getLong(1));
                }
            }
            assertThat(offsets).containsExactly(5L, 6L, 7L);
        }
    }

    @Test
    void perKeyClaimTakesOneContiguousRunPerKeyFromItsHead() throws SQLException {
        try (Connection c = MigratedSchemas.open("perkey"); Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 't', CASE WHEN g <= 6 THEN 'a' ELSE 'b' END, 'E', '\\x00' FROM generate_series(1, 10) g
                    """);
            // Key b's third row is not visible yet: its run stops before it.
            s.execute("UPDATE outbox_message SET visible_after = now() + interval '1 hour' WHERE seq = 9");
            s.execute("PREPARE claim(text, bigint, int, text, bigint, text) AS " + OutboxSql.CLAIM_PER_KEY);

            List<Long> first = MigratedSchemas.seqs(
                    s.executeQuery("EXECUTE claim('w1', 60000, 100, '', 67108864, '')"));
            List<Long> second = MigratedSchemas.seqs(
                    s.executeQuery("EXECUTE claim('w2', 60000, 100, '', 67108864, '')"));

            assertThat(first).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertThat(second).as("both keys are held by w1's leases").isEmpty();
        }
    }

    /**
     * Every claim commits without waiting for its WAL flush ({@link LeasedTableSql#ASYNC_CLAIM_COMMIT}), and only its
     * own transaction: the session's setting is back once it commits, so the transitions after it stay synchronous.
     */
    @Test
    void ingestTakesEveryKeyLockBeforeAnyRowTakesASeq() throws SQLException {
        try (Connection c = MigratedSchemas.open("ingest"); Statement s = c.createStatement()) {
            s.execute("PREPARE ingest(uuid[], text[], text[], text[], bytea, int[], int[], text[], text[], text[],"
                    + " text[], bigint[]) AS " + OutboxSql.INGEST);
            for (String mode : List.of("force_generic_plan", "force_custom_plan")) {
                s.execute("SET plan_cache_mode = " + mode);
                for (String keys : List.of("ARRAY['k', 'j']", "ARRAY[NULL, NULL]::text[]")) {
                    String text = lines(s, "EXPLAIN (VERBOSE, COSTS OFF) EXECUTE ingest("
                            + "ARRAY[gen_random_uuid(), gen_random_uuid()], ARRAY['t', 't'], " + keys + ","
                            + " ARRAY['T', 'T'], '\\x0102', ARRAY[1, 2], ARRAY[1, 1], ARRAY[NULL, NULL]::text[],"
                            + " ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::text[], ARRAY[NULL, NULL]::text[],"
                            + " ARRAY[NULL, 1000]::bigint[])");
                    String context = mode + ", keys " + keys + ":\n" + text;
                    // the lock calls are aggregated inside their CTE (not inlined: they are volatile) ...
                    int lockCte = text.indexOf("CTE key_lock");
                    assertThat(text.indexOf("pg_advisory_xact_lock(")).as(context).isGreaterThan(lockCte);
                    // ... and the inserted rows, nextval included, are computed above the join with its row, so
                    // no row has a seq before every lock is held
                    int insert = text.indexOf("Insert on");
                    int nextval = text.indexOf("nextval(");
                    int lockScan = text.indexOf("CTE Scan on key_lock");
                    assertThat(insert).as(context).isGreaterThan(lockCte);
                    assertThat(nextval).as(context).isGreaterThan(insert).isLessThan(lockScan);
                    assertThat(indentation(text, nextval)).as(context).isLessThan(indentation(text, lockScan));
                }
            }
        }
    }

    /** Leading spaces of the plan line holding {@code position}. */
    private static int indentation(String plan, int position) {
        int lineStart = plan.lastIndexOf('\n', position) + 1;
        int i = lineStart;
        while (i < plan.length() && (plan.charAt(i) == ' ' || plan.charAt(i) == '-' || plan.charAt(i) == '>')) {
            i++;
        }
        return i - lineStart;
    }

    private static String plan(Statement s, String name, String types, String sql, String args) throws SQLException {
        s.execute("PREPARE " + name + "(" + types + ") AS " + sql);
        return lines(s, "EXPLAIN EXECUTE " + name + "(" + args + ")");
    }

    /** The first column of every row {@code query} returns, one a line (a plan). */
    private static String lines(Statement s, String query) throws SQLException {
        StringBuilder lines = new StringBuilder();
        try (ResultSet rows = s.executeQuery(query)) {
            while (rows.next()) {
                lines.append(rows.getString(1)).append('\n');
            }
        }
        return lines.toString();
    }
}
