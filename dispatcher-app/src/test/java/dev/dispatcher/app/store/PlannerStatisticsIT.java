package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.sql.OutboxSql;
import dev.dispatcher.sql.StatisticsSql;
import dev.dispatcher.testkit.PlanShapes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link PlannerStatistics} on a real PostgreSQL: a plan cached while the outbox was empty reads the whole table
 * (the premise), the table's growth makes the statistics due, {@code refresh()} analyses it (seen from a separate
 * connection), and the cached plan of another session is made again, now through the primary key. Autovacuum is
 * off for the table so that only the code under test analyses it.
 */
class PlannerStatisticsIT {

    private static final int ROWS = 20_000;
    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");

    private static StoreTestDb db;

    @BeforeAll
    static void emptyAnalysedOutbox() throws Exception {
        db = new StoreTestDb("plannerstats");
        db.exec("ALTER TABLE outbox_message SET (autovacuum_enabled = false)");
        db.exec("ANALYZE outbox_message"); // analysed while empty: the statistics assume no rows
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void aPlanCachedOnTheEmptyOutboxIsMadeAgainOnceTheGrownTableIsAnalysed() throws Exception {
        PlannerStatistics statistics = new PlannerStatistics(db.pool);
        try (Connection session = db.jdbc(); Statement s = session.createStatement()) {
            // the service's setting: one generic plan per prepared statement, cached on its first execution
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("PREPARE deliver AS " + OutboxSql.DELIVER_LEASED);
            String cachedWhileEmpty = explainExecute(s, "deliver", OutboxSql.DELIVER_LEASED);
            assertThat(PlanShapes.readsAGrowingTableInFull(cachedWhileEmpty)).as(cachedWhileEmpty).isTrue();
            assertThat(statistics.refresh().block(StoreTestDb.BLOCK)).as("an empty table is not due").isEmpty();

            db.exec("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'plan-topic', 'key-' || (g % 64), 'TestEvent', convert_to(repeat('x', 256), 'UTF8')
                      FROM generate_series(1, ?) g
                    """, ROWS);
            // the inserting backend reports its live rows to the cumulative statistics within about a second
            List<String> analysed = await("a refresh that analyses the grown outbox").atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> statistics.refresh().block(StoreTestDb.BLOCK), tables -> !tables.isEmpty());
            assertThat(analysed).containsExactly("outbox_message");
            assertThat(analysedRows()).as("pg_class.reltuples seen from a fresh connection").isEqualTo(ROWS);
            assertThat(histogramBuckets("seq")).as("sampled at the young tables' statistics target")
                    .isEqualTo(StatisticsSql.YOUNG_TABLE_TARGET);
            assertThat(statistics.refresh().block(StoreTestDb.BLOCK)).as("not due again until it doubles").isEmpty();

            String madeAgain = explainExecute(s, "deliver", OutboxSql.DELIVER_LEASED);
            assertThat(madeAgain).as("the same session's cached plan after the ANALYZE").isNotEqualTo(cachedWhileEmpty);
            assertThat(PlanShapes.readsAGrowingTableInFull(madeAgain)).as(madeAgain).isFalse();
        }
    }

    /** {@code EXPLAIN EXECUTE} of a prepared statement, every parameter null (a generic plan ignores values). */
    private static String explainExecute(Statement s, String name, String sql) throws SQLException {
        int parameters = 0;
        Matcher m = PARAMETER.matcher(sql);
        while (m.find()) {
            parameters = Math.max(parameters, Integer.parseInt(m.group(1)));
        }
        StringBuilder plan = new StringBuilder();
        try (ResultSet rows = s.executeQuery("EXPLAIN EXECUTE " + name + "("
                + String.join(", ", java.util.Collections.nCopies(parameters, "NULL")) + ")")) {
            while (rows.next()) {
                plan.append(rows.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** Buckets of the column's histogram (bounds less one) in {@code pg_stats}, read from a fresh connection. */
    private static int histogramBuckets(String column) throws SQLException {
        try (Connection c = db.jdbc(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT array_length(histogram_bounds::text::text[], 1) FROM pg_stats"
                     + " WHERE schemaname = current_schema() AND tablename = 'outbox_message'"
                     + " AND attname = '" + column + "'")) {
            assertThat(r.next()).as("statistics of " + column).isTrue();
            return r.getInt(1) - 1;
        }
    }

    private static long analysedRows() throws SQLException {
        try (Connection c = db.jdbc(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT reltuples::bigint FROM pg_class WHERE oid = 'outbox_message'::regclass")) {
            r.next();
            return r.getLong(1);
        }
    }
}
