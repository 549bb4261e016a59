package dev.dispatcher.app.store;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * A second writer for race tests: holds a row lock in an open JDBC transaction, waits until another backend is
 * blocked on it ({@code pg_blocking_pids}), then changes the row and commits, so the blocked statement sees a
 * concurrent writer commit first. Deterministic: no sleeps decide the interleaving.
 */
final class RowLockRace implements AutoCloseable {

    /** Opens JDBC connections on the test's schema. */
    interface Jdbc {
        Connection open() throws SQLException;
    }

    private final Jdbc jdbc;
    private final String table;
    private final Connection locker;
    private final int lockerPid;

    /** Opens a transaction and locks the row of {@code table} where {@code rowCondition} holds (one {@code ?}). */
    RowLockRace(Jdbc jdbc, String table, String rowCondition, Object id) throws SQLException {
        this.jdbc = jdbc;
        this.table = table;
        this.locker = jdbc.open();
        locker.setAutoCommit(false);
        try (ResultSet rs = locker.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            lockerPid = rs.getInt(1);
        }
        try (PreparedStatement s = locker.prepareStatement(
                "SELECT 1 FROM " + table + " WHERE " + rowCondition + " FOR UPDATE")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("row " + id + " to lock is missing");
                }
            }
        }
    }

    /** Waits until some backend waits for our lock while running a statement on the table. */
    void awaitBlocked(Duration timeout) throws Exception {
        awaitBlockedBy(jdbc, lockerPid, "%" + table + "%", timeout);
    }

    /**
     * Waits until some backend whose statement is like {@code query} waits for a lock backend {@code pid} holds (a
     * row lock, an advisory lock: {@code pg_blocking_pids}).
     */
    static void awaitBlockedBy(Jdbc jdbc, int pid, String query, Duration timeout) throws Exception {
        try (Connection watcher = jdbc.open(); PreparedStatement s = watcher.prepareStatement("""
                SELECT count(*) FROM pg_stat_activity
                 WHERE ? = ANY(pg_blocking_pids(pid)) AND query LIKE ?""")) {
            s.setInt(1, pid);
            s.setString(2, query);
            await("a statement like %s blocked on a lock of backend %d".formatted(query, pid)).atMost(timeout)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        try (ResultSet rs = s.executeQuery()) {
                            rs.next();
                            return rs.getLong(1) > 0;
                        }
                    });
        }
    }

    /** Runs {@code sql} with {@code args} inside the locking transaction, then commits. */
    int changeAndCommit(String sql, Object... args) throws SQLException {
        int n;
        try (PreparedStatement s = locker.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            n = s.executeUpdate();
        }
        locker.commit();
        return n;
    }

    @Override
    public void close() throws SQLException {
        try {
            if (!locker.getAutoCommit()) {
                locker.rollback();
            }
        } finally {
            locker.close();
        }
    }
}
