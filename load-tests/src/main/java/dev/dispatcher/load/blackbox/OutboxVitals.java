package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.Set;

/**
 * relay-sustained's readings of PostgreSQL, on a connection of the harness's own: the outbox table's size, dead
 * tuples and deletes, the service's connections (by its {@code application_name}), the claim statements' cumulative
 * time ({@code pg_stat_statements}) and the commit-to-delivered times of the rows delivered in a window.
 *
 * <p>The claim statements are those of {@code pg_stat_statements} whose text sets {@code lease_owner} on {@code
 * outbox_message} and whose query id was not there before the service started ({@link #open}): the ids of this
 * run's schema (a query id depends on the tables' oids), unless another service on the same server started claiming
 * in a schema of its own at the same time. Without {@code pg_stat_statements} (not in {@code
 * shared_preload_libraries}, as on the embedded server) the claim figures are null.
 */
final class OutboxVitals implements AutoCloseable {

    private static final String CLAIMS = """
            SELECT queryid, calls, total_exec_time FROM pg_stat_statements
             WHERE query LIKE '%SET lease_owner = $1%' AND query LIKE '%outbox_message%'
               AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            """;

    private final Connection c;
    private final String table;
    private final String applicationName;
    private final Set<Long> earlierClaims;

    private OutboxVitals(Connection c, String table, String applicationName, Set<Long> earlierClaims) {
        this.c = c;
        this.table = table;
        this.applicationName = applicationName;
        this.earlierClaims = earlierClaims;
    }

    /**
     * Readings of {@code schema}'s outbox and of the service connecting as {@code applicationName}; call before the
     * service starts, so the claim statements already known are told apart from its own.
     */
    static OutboxVitals open(BenchEnvironment env, String schema, String applicationName) throws SQLException {
        Connection c = env.postgres().openConnection();
        Set<Long> earlier = null;
        try (Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            earlier = new HashSet<>();
            try (ResultSet r = s.executeQuery(CLAIMS)) {
                while (r.next()) {
                    earlier.add(r.getLong(1));
                }
            }
        } catch (SQLException e) {
            System.out.println("relay-sustained: no claim times, pg_stat_statements is not available: "
                    + e.getMessage().lines().findFirst().orElse(""));
            earlier = null;
        }
        return new OutboxVitals(c, schema + ".outbox_message", applicationName, earlier);
    }

    /** One reading; the claim figures are null without {@code pg_stat_statements}. */
    record Reading(OffsetDateTime at, long tableBytes, long indexBytes, long deadTuples, long liveTuples,
            long deletedRows, int connections, Long claimCalls, Double claimMillis) {

        /** The claim statements' mean execution time since {@code earlier}, in ms; null without calls or figures. */
        Double claimMeanMsSince(Reading earlier) {
            if (claimCalls == null || earlier.claimCalls == null || claimCalls <= earlier.claimCalls) {
                return null;
            }
            return (claimMillis - earlier.claimMillis) / (claimCalls - earlier.claimCalls);
        }
    }

    /** The table now (before the service created it: zeros). */
    Reading read() throws SQLException {
        OffsetDateTime at;
        long tableBytes = 0;
        long indexBytes = 0;
        long dead = 0;
        long live = 0;
        long deleted = 0;
        int connections;
        try (PreparedStatement s = c.prepareStatement("""
                SELECT clock_timestamp(), pg_table_size(t.oid), pg_indexes_size(t.oid), s.n_dead_tup, s.n_live_tup,
                       s.n_tup_del
                  FROM (SELECT to_regclass(?) AS oid) t LEFT JOIN pg_stat_user_tables s ON s.relid = t.oid
                """)) {
            s.setString(1, table);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                at = r.getObject(1, OffsetDateTime.class);
                tableBytes = r.getLong(2);
                indexBytes = r.getLong(3);
                dead = r.getLong(4);
                live = r.getLong(5);
                deleted = r.getLong(6);
            }
        }
        try (PreparedStatement s = c.prepareStatement("""
                SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()
                """)) {
            s.setString(1, applicationName);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                connections = r.getInt(1);
            }
        }
        Long calls = null;
        Double millis = null;
        if (earlierClaims != null) {
            calls = 0L;
            millis = 0.0;
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(CLAIMS)) {
                while (r.next()) {
                    if (!earlierClaims.contains(r.getLong(1))) {
                        calls += r.getLong(2);
                        millis += r.getDouble(3);
                    }
                }
            }
        }
        return new Reading(at, tableBytes, indexBytes, dead, live, deleted, connections, calls, millis);
    }

    /** Rows delivered in {@code [from, to)} by the database's clock, and their {@code delivered_at - created_at}. */
    record RowTimes(long delivered, double p99Ms) {
    }

    /**
     * The rows delivered in {@code [from, to)} and the 99th percentile of their {@code delivered_at - created_at}.
     * Read right after {@code to}: retention deletes rows delivered more than its window ago, so a window no older
     * than that is whole. The created_at range lets the BRIN index skip older pages.
     */
    RowTimes rowTimes(OffsetDateTime from, OffsetDateTime to) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("""
                SELECT count(*),
                       coalesce(percentile_cont(0.99) WITHIN GROUP (
                           ORDER BY extract(epoch FROM delivered_at - created_at) * 1000), 0)
                  FROM %s
                 WHERE status = 'DELIVERED' AND delivered_at >= ? AND delivered_at < ?
                   AND created_at >= ?::timestamptz - interval '10 minutes'
                """.formatted(table))) {
            s.setObject(1, from);
            s.setObject(2, to);
            s.setObject(3, from);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new RowTimes(r.getLong(1), r.getDouble(2));
            }
        }
    }

    @Override
    public void close() throws SQLException {
        c.close();
    }
}
