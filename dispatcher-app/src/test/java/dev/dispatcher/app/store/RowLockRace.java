package dev.dispatcher.app.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/**
 * A second writer for race tests: holds a row lock in an open JDBC transaction, waits until another backend is
 * blocked on it ({@code pg_blocking_pids}), then changes the row and commits, so the blocked statement sees a
 * concurrent writer commit first. Deterministic: no sleeps decide the interleaving.
 */
final class RowLockRace implements AutoCloseable {

    private final StoreTestDb db;
    private final Connection locker;
    private final int lockerPid;

    /** Opens a transaction and locks {@code id} {@code FOR UPDATE}. */
    RowLockRace(StoreTestDb db, UUID id) throws SQLException {
        this.db = db;
        this.locker = db.jdbc();
        locker.setAutoCommit(false);
        try (ResultSet rs = locker.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            lockerPid = rs.getInt(1);
        }
        try (PreparedStatement s = locker.prepareStatement("SELECT id FROM outbox_message WHERE id = ? FOR UPDATE")) {
            s.setObject(1, id);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError("row " + id + " to lock is missing");
                }
            }
        }
    }

    /** Waits until some backend waits for our lock while running a statement on {@code outbox_message}. */
    void awaitBlocked(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection watcher = db.jdbc(); PreparedStatement s = watcher.prepareStatement("""
                SELECT count(*) FROM pg_stat_activity
                 WHERE ? = ANY(pg_blocking_pids(pid)) AND query LIKE '%outbox_message%'""")) {
            s.setInt(1, lockerPid);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("no statement blocked on the row lock within " + timeout);
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
