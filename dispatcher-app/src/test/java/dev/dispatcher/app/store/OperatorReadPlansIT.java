package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.sql.InboxSql;
import dev.dispatcher.sql.OutboxSql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What each filter of the operator listings reads, on 200,000 analysed outbox rows (150,000 delivered, 39,000 live,
 * 1,000 dead letters; 20 topics and a rare one, 5,000 keys) and 100,000 inbox rows, planned as the service runs them
 * ({@code Connections.boundedRead}: a custom plan in its own transaction), asked for a page of 50 of a rare topic and
 * a key. Three kinds, each listed here so that a change of plan or index moves a filter from one list to another on
 * purpose:
 * <ul>
 *   <li>{@link #PAGE}: an index gives the rows in {@code seq} order and the page stops the scan: it reads about its
 *       own rows;</li>
 *   <li>{@link #SUBSET}: a partial index narrows the read to the live rows or the dead letters, filtered there;</li>
 *   <li>{@link #HISTORY}: a topic or key over the delivered history (no status, or {@code DELIVERED}), which no
 *       index holds (one would cost every insert): the read walks the history, and {@code
 *       dispatcher.operator.read-timeout} is what bounds it ({@code OperatorReadTimeoutIT}).</li>
 * </ul>
 */
class OperatorReadPlansIT {

    /** Status, by topic, by key: an index gives the page in seq order. */
    private static final List<String> PAGE = List.of("null,false,false", "PENDING,false,false",
            "PENDING,false,true", "PENDING,true,true", "RETRY_SCHEDULED,false,false", "RETRY_SCHEDULED,false,true",
            "RETRY_SCHEDULED,true,true", "DELIVERED,false,false", "DEAD_LETTERED,false,false",
            "DEAD_LETTERED,true,false", "DEAD_LETTERED,true,true");
    /** A partial index (live rows, dead letters) narrows the read; the filter runs on that subset. */
    private static final List<String> SUBSET = List.of("PENDING,true,false", "RETRY_SCHEDULED,true,false",
            "DEAD_LETTERED,false,true");
    /** A topic or key over the history: bounded by the read timeout only. */
    private static final List<String> HISTORY = List.of("null,false,true", "null,true,false", "null,true,true",
            "DELIVERED,false,true", "DELIVERED,true,false", "DELIVERED,true,true");

    /** Rows a page of {@code PAGE} may read beyond its own (filtered out, or found through a bitmap). */
    private static final long PAGE_READS_AT_MOST = 500;
    /** Rows a {@code HISTORY} filter reads at least here: a good part of the delivered history. */
    private static final long HISTORY_READS_AT_LEAST = 20_000;

    private static final Pattern REMOVED = Pattern.compile("Rows Removed by Filter: (\\d+)");
    private static final Pattern BITMAP_ROWS = Pattern.compile("Bitmap Index Scan.*actual rows=(\\d+)");

    private static StoreTestDb db;

    @BeforeAll
    static void seed() throws SQLException {
        db = new StoreTestDb("operator_plans");
        try (Connection c = db.jdbc(); Statement s = c.createStatement()) {
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at,
                                                dead_lettered_at, visible_after)
                    SELECT CASE WHEN g % 1000 = 7 THEN 'rare' ELSE 'topic-' || (g % 20) END,
                           CASE WHEN g % 10 = 0 THEN NULL ELSE 'key-' || (g % 5000) END, 'E', '\\x00',
                           CASE WHEN g <= 150000 THEN 'DELIVERED' WHEN g % 50 = 1 THEN 'DEAD_LETTERED'
                                WHEN g % 5 = 0 THEN 'RETRY_SCHEDULED' ELSE 'PENDING' END,
                           CASE WHEN g <= 150000 THEN now() END,
                           CASE WHEN g > 150000 AND g % 50 = 1 THEN now() END,
                           now() + interval '1 hour'
                      FROM generate_series(1, 200000) g
                    """);
            s.execute("""
                    INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                               source_offset, message_key, event_type, payload, status,
                                               completed_at, dead_lettered_at)
                    SELECT CASE WHEN g % 4 = 0 THEN 'other' ELSE 'orders' END, 'm-' || g, 'orders', g % 6, g,
                           'key-' || (g % 63), 'E', '\\x00',
                           CASE WHEN g % 100 = 1 THEN 'DEAD_LETTERED' WHEN g % 2 = 0 THEN 'COMPLETED'
                                ELSE 'PENDING' END,
                           CASE WHEN g % 2 = 0 THEN now() END, CASE WHEN g % 100 = 1 THEN now() END
                      FROM generate_series(1, 100000) g
                    """);
            s.execute("ANALYZE");
        }
    }

    @AfterAll
    static void drop() {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void everyFilterIsListedOnceAsPageSubsetOrHistory() {
        List<String> all = new ArrayList<>(PAGE);
        all.addAll(SUBSET);
        all.addAll(HISTORY);
        assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(plans().keySet());
    }

    @Test
    void aPageFoundThroughAnIndexReadsAboutItsOwnRows() {
        Map<String, String> plans = plans();
        for (String filter : PAGE) {
            String plan = plans.get(filter);
            assertThat(plan).as(filter).doesNotContain("Seq Scan").contains("Index");
            assertThat(rowsReadBeyondThePage(plan)).as(filter + "\n" + plan).isLessThanOrEqualTo(PAGE_READS_AT_MOST);
        }
    }

    @Test
    void aTopicOverTheLiveRowsOrAKeyOverTheDeadLettersReadsOnlyThatPartialIndex() {
        Map<String, String> plans = plans();
        for (String filter : SUBSET) {
            String plan = plans.get(filter);
            assertThat(plan).as(filter).doesNotContain("Seq Scan")
                    .containsPattern("using outbox_message_(live_seq_idx|dead_letter_idx|dead_letter_seq_idx)");
        }
    }

    @Test
    void aTopicOrKeyOverTheHistoryWalksItSoOnlyTheReadTimeoutBoundsIt() {
        Map<String, String> plans = plans();
        for (String filter : HISTORY) {
            assertThat(rowsReadBeyondThePage(plans.get(filter))).as(filter + "\n" + plans.get(filter))
                    .isGreaterThanOrEqualTo(HISTORY_READS_AT_LEAST);
        }
    }

    @Test
    void anInboxConsumersDeadLettersArePagedOnTheirIndex() throws SQLException {
        String plan = explain(InboxSql.DEAD_LETTERS_PAGE, List.of("'orders'", "0", "51"));

        assertThat(plan).contains("using inbox_message_dead_letter_idx").doesNotContain("Seq Scan")
                .doesNotContain("Sort");
        assertThat(rowsReadBeyondThePage(plan)).isZero();
    }

    /** Every outbox listing filter ({@code status,byTopic,byKey}) with its plan, run once for the class. */
    private static Map<String, String> plans() {
        if (plans == null) {
            Map<String, String> all = new LinkedHashMap<>();
            try {
                for (String status : new String[] {null, "PENDING", "RETRY_SCHEDULED", "DELIVERED", "DEAD_LETTERED"}) {
                    for (boolean byTopic : new boolean[] {false, true}) {
                        for (boolean byKey : new boolean[] {false, true}) {
                            List<String> args = new ArrayList<>(List.of("0", "51"));
                            if (byTopic) {
                                args.add("'rare'");
                            }
                            if (byKey) {
                                args.add("'key-7'");
                            }
                            all.put(status + "," + byTopic + "," + byKey,
                                    explain(OutboxSql.list(status, byTopic, byKey), args));
                        }
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            plans = all;
        }
        return plans;
    }

    private static Map<String, String> plans;

    /** Rows a plan filtered out, plus those a bitmap scan found: what it read beyond what it returned. */
    private static long rowsReadBeyondThePage(String plan) {
        long rows = 0;
        for (Pattern p : List.of(REMOVED, BITMAP_ROWS)) {
            Matcher m = p.matcher(plan);
            while (m.find()) {
                rows += Long.parseLong(m.group(1));
            }
        }
        return rows;
    }

    /** The executed plan of {@code sql} with {@code args}, as {@code Connections.boundedRead} plans it. */
    private static String explain(String sql, List<String> args) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Connection c = db.jdbc(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SET LOCAL plan_cache_mode = force_custom_plan");
            s.execute("PREPARE listing AS " + sql);
            try (ResultSet rows = s.executeQuery("EXPLAIN (ANALYZE, TIMING OFF) EXECUTE listing("
                    + String.join(", ", args) + ")")) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
            c.rollback();
        }
        return plan.toString();
    }
}
