package dev.dispatcher.client;

import static org.awaitility.Awaitility.await;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A migrated schema with an application table {@code orders} beside Dispatcher's, and checks that read through
 * connections of their own, never the writer's.
 */
public final class ClientTestDb {

    public static final PostgresServer postgres = TestServers.postgres();

    public final String schema;

    public ClientTestDb(String prefix) {
        schema = postgres.createSchema(prefix);
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + schema + ".orders (id text PRIMARY KEY, amount numeric NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public int countOrders(String orderId) throws SQLException {
        return count("SELECT count(*) FROM " + schema + ".orders WHERE id = ?", orderId);
    }

    public int countOutbox(Object id) throws SQLException {
        return count("SELECT count(*) FROM " + schema + ".outbox_message WHERE id = ?", id);
    }

    /** The event types of a key's committed rows, in seq order. */
    public List<String> typesOfKey(String key) throws SQLException {
        try (Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT event_type FROM " + schema + ".outbox_message WHERE message_key = ? ORDER BY seq")) {
            q.setString(1, key);
            List<String> types = new ArrayList<>();
            try (ResultSet rows = q.executeQuery()) {
                while (rows.next()) {
                    types.add(rows.getString(1));
                }
            }
            return types;
        }
    }

    /** Seconds from the database clock now until the row's {@code visible_after}. */
    public double secondsUntilVisible(Object id) throws SQLException {
        try (Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT extract(epoch FROM visible_after - clock_timestamp()) FROM " + schema
                        + ".outbox_message WHERE id = ?")) {
            q.setObject(1, id);
            try (ResultSet row = q.executeQuery()) {
                row.next();
                return row.getDouble(1);
            }
        }
    }

    private static int count(String sql, Object parameter) throws SQLException {
        try (Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setObject(1, parameter);
            try (ResultSet rows = q.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    public static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
            r.next();
            return r.getInt(1);
        }
    }

    /**
     * Waits until some backend waits for an advisory lock (a key's writer lock) that backend {@code holderPid}
     * holds, as {@code pg_locks} and {@code pg_blocking_pids} show it: the moment a second writer of the key is
     * held back, made visible instead of guessed with a sleep.
     */
    public static void awaitWriterBlockedBy(int holderPid) throws SQLException {
        try (Connection c = postgres.openConnection(); PreparedStatement q = c.prepareStatement("""
                SELECT count(*) FROM pg_locks l
                 WHERE l.locktype = 'advisory' AND NOT l.granted AND ? = ANY (pg_blocking_pids(l.pid))
                """)) {
            q.setInt(1, holderPid);
            await("a writer waiting for the advisory lock of backend " + holderPid).atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        try (ResultSet r = q.executeQuery()) {
                            r.next();
                            return r.getInt(1) > 0;
                        }
                    });
        }
    }
}
