package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.testkit.PlanShapes;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every statement of this package under the plan the service runs it with: Dispatcher's connections cache one
 * generic plan per prepared statement ({@code plan_cache_mode=force_generic_plan}, set by the service), so a plan
 * is chosen once, without the parameters' values (a limit, an array's length). On a table with a large live backlog
 * and delivered history, no statement may then read a leased or audit table in full: each finds its rows through an
 * index whatever its parameters turn out to be, and none joins two row sets by comparing every pair, both on a
 * large analysed backlog and on statistics taken while the outbox was drained. The claims that read a live index
 * in {@code seq} order and retention run in a transaction that plans for the actual values instead ({@link
 * #PLANNED_PER_CALL}; the claims' plans are checked by {@code SchemaIT} and the service's {@code ClaimPlanIT}): a
 * generic plan of the unordered claim joins its picked rows to the table with a hash join over a sequential scan.
 * The per-key claim once joined its locked rows to its picked ones, which on drained statistics became a nested
 * loop comparing every pair (a relay behind a 2,000/s stream spent 186 ms per claim); it now cuts its runs from
 * the set difference of the two instead and keeps its generic plan. A join counts as comparing every pair when a
 * nested loop reads a materialised row set once per outer row ({@code PlanShapes.joinsEveryPairWithARowSet}),
 * whatever its outer side: so planned, the fast Deliver compared every input with every written row (29 ms for
 * 500 rows, 8 of them the UPDATE), the classified transition joined its written rows the same way (500 renewals
 * 40-43 ms, 12.5 merged by grouping) and the bulk dead-letter replay every dead letter with every picked row.
 */
class GenericPlanIT {

    /** Statements the service runs with {@code plan_cache_mode=force_custom_plan} in their transaction. */
    static final Set<String> PLANNED_PER_CALL = Set.of("OutboxSql.CLAIM_UNORDERED", "InboxSql.CLAIM",
            "OutboxSql.DELETE_FINISHED", "AuditSql.DELETE_OLD");

    private static PostgresServer postgres;
    /** A large live backlog, analysed. */
    private static String backlog;
    /** Statistics taken while the outbox was drained, then a smaller backlog: the usual state under steady load. */
    private static String drained;
    /**
     * A young table as the service analyses it ({@code store.PlannerStatistics}: {@link StatisticsSql#ANALYZE_OUTBOX}
     * and {@link StatisticsSql#ANALYZE_INBOX}, at a low statistics target) while it grows and is worked: 20,000
     * outbox rows, half delivered (of the live ones a hot key holds half), and 20,000 inbox rows, half completed.
     * (With every row live, counting the backlog by reading the whole table is the right plan, at any target.)
     */
    private static String young;
    /** Analysed while empty: plans made then read the tables in full, which is why the service re-analyses them. */
    private static String empty;

    @BeforeAll
    static void schemas() throws SQLException {
        postgres = TestServers.postgres();
        backlog = postgres.createSchema("generic_plan");
        try (Connection c = connection(backlog); Statement s = c.createStatement()) {
            // outbox: 100,000 live rows (one hot key holds half), 50,000 delivered; inbox: 50,000 live, 50,000 done;
            // audit: 100,000 entries over a day
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'bench', CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'key-' || (g % 63) END, 'E', '\\x00'
                      FROM generate_series(1, 100000) g
                    """);
            s.execute(DELIVERED);
            s.execute(INBOX);
            s.execute(AUDIT);
            s.execute("ANALYZE");
        }
        empty = postgres.createSchema("generic_plan_empty");
        try (Connection c = connection(empty); Statement s = c.createStatement()) {
            s.execute("ANALYZE outbox_message");
            s.execute("ANALYZE inbox_message");
            s.execute("ANALYZE dispatch_audit");
        }
        drained = postgres.createSchema("generic_plan_drained");
        try (Connection c = connection(drained); Statement s = c.createStatement()) {
            s.execute(DELIVERED);
            s.execute(INBOX);
            s.execute(AUDIT);
            s.execute("ANALYZE");
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'bench', 'key-' || (g % 64), 'E', '\\x00' FROM generate_series(1, 5000) g
                    """);
        }
        young = postgres.createSchema("generic_plan_young");
        try (Connection c = connection(young); Statement s = c.createStatement()) {
            s.execute(DELIVERED.replace("50000", "10000"));
            s.execute("""
                    INSERT INTO outbox_message (topic, message_key, event_type, payload)
                    SELECT 'bench', CASE WHEN g % 2 = 0 THEN 'hot' ELSE 'key-' || (g % 63) END, 'E', '\\x00'
                      FROM generate_series(1, 10000) g
                    """);
            s.execute(INBOX.replace("100000", "20000"));
            c.setAutoCommit(false);
            s.execute(StatisticsSql.AT_YOUNG_TABLE_TARGET);
            s.execute(StatisticsSql.ANALYZE_OUTBOX);
            s.execute(StatisticsSql.ANALYZE_INBOX);
            c.commit();
        }
    }

    private static final String DELIVERED = """
            INSERT INTO outbox_message (topic, message_key, event_type, payload, status, delivered_at)
            SELECT 'bench', 'key-' || (g % 63), 'E', '\\x00', 'DELIVERED', now()
              FROM generate_series(1, 50000) g
            """;

    private static final String AUDIT = """
            INSERT INTO dispatch_audit (actor, action, message_id, occurred_at)
            SELECT 'operator', 'replay', 'm-' || g, now() - (100000 - g) * interval '1 second'
              FROM generate_series(1, 100000) g
            """;

    /** Inbox rows: half completed; of the live ones a hot key holds about half, some keys are binary, some none. */
    private static final String INBOX = """
            INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition,
                                       source_offset, message_key, message_key_bytes, event_type, payload, status,
                                       completed_at)
            SELECT CASE WHEN g % 4 = 0 THEN 'other' ELSE 'orders' END, 'm-' || g, 'orders', g % 6, g,
                   CASE WHEN g % 10 IN (1, 3) THEN NULL WHEN g % 4 = 1 THEN 'hot' ELSE 'key-' || (g % 63) END,
                   CASE WHEN g % 10 = 3 THEN decode('00' || lpad(to_hex(g % 17), 2, '0'), 'hex') END, 'E',
                   '\\x00', CASE WHEN g % 2 = 0 THEN 'COMPLETED' ELSE 'PENDING' END,
                   CASE WHEN g % 2 = 0 THEN now() END
              FROM generate_series(1, 100000) g
            """;

    @AfterAll
    static void drop() throws SQLException {
        for (String schema : new String[] {backlog, drained, empty, young}) {
            if (postgres != null && schema != null) {
                postgres.dropSchema(schema);
            }
        }
    }

    @Test
    void noStatementReadsAGrowingTableInFullOrJoinsAllPairsUnderItsGenericPlan() throws Exception {
        Map<String, String> statements = statements();
        assertThat(statements).containsKeys("OutboxSql.CLAIM_PER_KEY", "OutboxSql.DELIVER_LEASED",
                "OutboxSql.INGEST", "InboxSql.TRANSITION", "InboxSql.CLAIM_PER_KEY", "InboxSql.INSERT",
                "AuditSql.DELETE_OLD");
        Map<String, String> hazards = new LinkedHashMap<>();
        for (String schema : new String[] {backlog, drained, young}) {
            try (Connection c = connection(schema)) {
                for (Map.Entry<String, String> e : statements.entrySet()) {
                    if (PLANNED_PER_CALL.contains(e.getKey())) {
                        continue;
                    }
                    String plan = genericPlan(c, e.getValue());
                    if (PlanShapes.readsAGrowingTableInFull(plan) || PlanShapes.joinsEveryPairWithARowSet(plan)) {
                        hazards.put(schema + " " + e.getKey(), plan);
                    }
                }
            }
        }
        assertThat(hazards).as("statements whose generic plan reads a growing table in full or joins all pairs")
                .isEmpty();
    }

    /**
     * Why the service keeps young tables' statistics up with their size ({@code store.PlannerStatistics}): plans
     * made while the tables were empty read them in full, the relay's per-key claim and Deliver among them.
     */
    @Test
    void plansMadeWhileTheTablesWereEmptyReadThemInFull() throws Exception {
        Map<String, String> statements = statements();
        try (Connection c = connection(empty)) {
            for (String name : List.of("OutboxSql.CLAIM_PER_KEY", "OutboxSql.DELIVER_LEASED", "OutboxSql.INGEST")) {
                String plan = genericPlan(c, statements.get(name));
                assertThat(PlanShapes.readsAGrowingTableInFull(plan)).as(name + "\n" + plan).isTrue();
            }
        }
    }

    /** The exemption is narrow: each exempted statement's generic plan has one of the hazards in some state. */
    @Test
    void theStatementsPlannedPerCallWouldBeHazardsUnderAGenericPlan() throws Exception {
        Map<String, String> statements = statements();
        for (String name : PLANNED_PER_CALL) {
            assertThat(statements).containsKey(name);
            StringBuilder plans = new StringBuilder();
            for (String schema : new String[] {backlog, drained}) {
                try (Connection c = connection(schema); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    // as the claims run (Connections.inIndexOrder), so the hazard is not the bitmap scan
                    s.execute("SET LOCAL enable_bitmapscan = off");
                    plans.append(genericPlan(c, statements.get(name)));
                    c.rollback();
                }
            }
            assertThat(PlanShapes.readsAGrowingTableInFull(plans.toString())
                    || PlanShapes.joinsEveryPairWithARowSet(plans.toString()))
                    .as(name + "\n" + plans)
                    .isTrue();
        }
    }

    /**
     * {@code EXPLAIN (GENERIC_PLAN)} (PostgreSQL 16+), run server-side so that the statement's {@code $n} reach
     * PostgreSQL as written rather than as JDBC parameters.
     */
    private static String genericPlan(Connection c, String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement explain = c.prepareStatement("SELECT line FROM pg_temp.explain_generic(?) AS line")) {
            explain.setString(1, sql);
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
        }
        return plan.toString();
    }

    /** Every SQL statement constant of the statement classes, and every operator listing variant. */
    static Map<String, String> statements() throws IllegalAccessException {
        Map<String, String> all = new LinkedHashMap<>();
        for (Class<?> type : List.of(OutboxSql.class, InboxSql.class, AuditSql.class, ControlSql.class)) {
            for (Field f : type.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                    String sql = ((String) f.get(null)).strip();
                    if (sql.matches("(?is)^(SELECT|WITH|INSERT|UPDATE|DELETE)\\b.*")) {
                        all.put(type.getSimpleName() + "." + f.getName(), sql);
                    }
                }
            }
        }
        for (String status : new String[] {null, "PENDING", "DEAD_LETTERED", "DELIVERED"}) {
            for (boolean byTopic : new boolean[] {false, true}) {
                for (boolean byKey : new boolean[] {false, true}) {
                    all.put("OutboxSql.list(" + status + "," + byTopic + "," + byKey + ")",
                            OutboxSql.list(status, byTopic, byKey));
                }
            }
        }
        return all;
    }

    /** A connection with the service's session settings ({@link SessionSettings#SERVICE}). */
    private static Connection connection(String schema) throws SQLException {
        Connection c = postgres.openConnection(schema);
        try (Statement s = c.createStatement()) {
            for (Map.Entry<String, String> setting : SessionSettings.SERVICE.entrySet()) {
                s.execute("SET " + setting.getKey() + " = " + setting.getValue());
            }
            s.execute("""
                    CREATE FUNCTION pg_temp.explain_generic(statement text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
                    BEGIN
                        RETURN QUERY EXECUTE 'EXPLAIN (GENERIC_PLAN) ' || statement;
                    END
                    $f$
                    """);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }
}
