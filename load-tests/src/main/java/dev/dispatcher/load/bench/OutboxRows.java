package dev.dispatcher.load.bench;

import dev.dispatcher.sql.LeasedTableSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The harness's own statements on a service's {@code outbox_message}: seeding backlogs, reading the ids and states
 * of rows, and waiting for the live rows to be gone. Each runs on a connection of its own, never the service's.
 */
public final class OutboxRows {

    /**
     * Live rows, as the service's own backlog statements select them: {@code seq > 0} matches the predicate of the
     * partial index of live rows ({@code outbox_message_live_seq_idx}), so PostgreSQL reads that index instead of
     * the whole table.
     */
    private static final String LIVE_ROWS =
            "FROM outbox_message WHERE status IN " + LeasedTableSql.LIVE + " AND seq > 0";

    private final BenchEnvironment env;

    public OutboxRows(BenchEnvironment env) {
        this.env = env;
    }

    /**
     * Inserts {@code n} rows of {@code topic} with one {@code INSERT ... SELECT}, each payload a JSON string of
     * {@code payloadBytes} bytes ({@link #jsonPayload}), the key of generated row {@code g}
     * being {@code keyExpression}, then analyses the table and checkpoints: every timed phase starts right after
     * its seeding, from a fresh checkpoint (a timed checkpoint in one phase only would bias a comparison).
     */
    public void insert(String schema, String topic, String keyExpression, int payloadBytes, int n)
            throws SQLException {
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute(insertStatement(topic, keyExpression, payloadBytes, n));
            s.execute("ANALYZE outbox_message");
            s.execute("CHECKPOINT");
        }
    }

    /**
     * Writes {@code n} rows of {@code topic} in one transaction, as an application does ({@link #insert}'s statement,
     * nothing after it): for a running relay to pick up at once.
     */
    public void write(String schema, String topic, String keyExpression, int payloadBytes, int n)
            throws SQLException {
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute(insertStatement(topic, keyExpression, payloadBytes, n));
        }
    }

    private static String insertStatement(String topic, String keyExpression, int payloadBytes, int n) {
        return """
                INSERT INTO outbox_message (topic, message_key, event_type, payload)
                SELECT '%s', %s, 'BenchEvent', convert_to(%s, 'UTF8')
                  FROM generate_series(1, %d) g
                """.formatted(topic, keyExpression, jsonPayload(payloadBytes), n);
    }

    /**
     * How far {@code topic}'s rows are: delivered and dead-lettered counts, and the seconds from their first
     * {@code created_at} to their last {@code delivered_at} (0 before any delivery), by the database's clock.
     */
    public record Progressed(long delivered, long deadLettered, double writtenToLastDeliveryS) {
    }

    public Progressed progressed(String schema, String topic) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT count(*) FILTER (WHERE status = 'DELIVERED'), count(*) FILTER (WHERE status = 'DEAD_LETTERED'),
                       coalesce(extract(epoch FROM max(delivered_at) - min(created_at)), 0)
                  FROM outbox_message WHERE topic = ?""")) {
            s.setString(1, topic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new Progressed(r.getLong(1), r.getLong(2), r.getDouble(3));
            }
        }
    }

    /**
     * A payload of {@code bytes} bytes that is one JSON value (a string of {@code x}, as the rows' default content
     * type {@code application/json} says), as SQL; {@code x} alone when it is one byte.
     */
    static String jsonPayload(int bytes) {
        return bytes < 2 ? "repeat('x', " + bytes + ")" : "'\"' || repeat('x', " + (bytes - 2) + ") || '\"'";
    }

    /**
     * Inserts the {@code --poison-topic} row: key {@code poison} (a key of its own, so no other row waits behind
     * it), for {@code missingTopic}, which nobody creates; returns its id.
     */
    public String insertPoison(String schema, String missingTopic) throws SQLException {
        return insertPoison(schema, missingTopic, "'poison'");
    }

    /**
     * {@link #insertPoison(String, String)} with the key {@code keys} (a {@link
     * dev.dispatcher.load.mode.Keys#sqlExpression} of {@code g}) gives the first row of a seed ({@code g = 1}): the
     * drained rows of that key share it (issue 49: with {@code ordering=per-key} they do not wait behind it, the unit
     * being {@code (topic, key)}; with {@code per-key-across-topics} they do, until the missing-topic timeout).
     */
    public String insertPoison(String schema, String missingTopic, String keys) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                INSERT INTO outbox_message (topic, message_key, event_type, payload)
                SELECT ?, %s, 'BenchEvent', convert_to('{}', 'UTF8') FROM generate_series(1, 1) g
                RETURNING id::text""".formatted(keys))) {
            s.setString(1, missingTopic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getString(1);
            }
        }
    }

    /** The ids of every row of {@code topic}. */
    public Set<String> ids(String schema, String topic) throws SQLException {
        return ids(schema, topic, null);
    }

    /** The ids of the rows of {@code topic} but those of key {@code keyNot} (null: none left out). */
    public Set<String> ids(String schema, String topic, String keyNot) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT id::text FROM outbox_message WHERE topic = ? AND message_key IS DISTINCT FROM ?""")) {
            s.setString(1, topic);
            s.setString(2, keyNot);
            Set<String> ids = new HashSet<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
            return ids;
        }
    }

    /** A row's status, attempts and last error, for the harness's output. */
    public String describe(String schema, String id) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement(
                "SELECT status, attempts, last_error FROM outbox_message WHERE id = ?::uuid")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) + ", attempts " + r.getInt(2) + ", last error: " + r.getString(3)
                        : "absent";
            }
        }
    }

    /** Live rows now, or -1 when the database did not answer (progress lines only). */
    public long backlog(String schema) {
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) " + LIVE_ROWS)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    /**
     * Waits until {@code schema}'s outbox has no live row, or {@code timeout} passes; returns whether it emptied.
     * One connection and an {@code EXISTS} probe on the live index every {@code pollEvery}, printing {@code
     * progress} every few seconds. For the harness's main thread only.
     */
    public boolean awaitNoBacklog(String schema, Duration pollEvery, Duration timeout, Progress progress)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = env.jdbc(schema); PreparedStatement exists = c.prepareStatement(
                "SELECT EXISTS (SELECT 1 " + LIVE_ROWS + ")")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet r = exists.executeQuery()) {
                    r.next();
                    if (!r.getBoolean(1)) {
                        return true;
                    }
                }
                progress.maybePrint(() -> "backlog " + backlog(schema));
                Thread.sleep(pollEvery.toMillis()); // a harness main thread: waiting is its job
            }
            return false;
        }
    }

    /**
     * {@code VACUUM (ANALYZE)} of the outbox, as autovacuum does for a service in steady operation: until a vacuum
     * removes a drained backlog's entries from the live partial indexes, every per-key claim steps over them.
     */
    public void vacuum(String schema) throws SQLException {
        long start = System.nanoTime();
        try (Connection c = env.jdbc(schema); Statement s = c.createStatement()) {
            s.execute("VACUUM (ANALYZE) outbox_message");
        }
        System.out.printf(java.util.Locale.ROOT, "VACUUM (ANALYZE) outbox_message in %.1f s%n",
                (System.nanoTime() - start) / 1e9);
    }

    /**
     * {@code topic}'s deliveries by the rows' own times: {@code rate}, delivered rows a second from the first claim
     * ({@code last_attempt_at}) to the last delivery ({@code delivered_at}); {@code eachSecond}, the rows delivered
     * in each second after the first claim, to tell a slow start or tail from a slow steady state; {@code window},
     * that span in UTC wall-clock time, to match against {@code pidstat} or PostgreSQL's log.
     */
    public record Deliveries(double rate, String eachSecond, String window) {
    }

    /**
     * PostgreSQL's clock now ({@code clock_timestamp()}): the origin of {@link #deliveredEachSecond}, read by the
     * same clock that stamps {@code delivered_at}.
     */
    public OffsetDateTime databaseNow() throws SQLException {
        try (Connection c = env.postgres().openConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT clock_timestamp()")) {
            r.next();
            return r.getObject(1, OffsetDateTime.class);
        }
    }

    /**
     * Rows of {@code topic} delivered in each second since {@code since}: element {@code i} counts the {@code
     * delivered_at} in {@code [since + i s, since + i + 1 s)}, up to the last delivery ({@link RampUp}'s input).
     */
    public long[] deliveredEachSecond(String schema, String topic, OffsetDateTime since) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT floor(extract(epoch FROM delivered_at - ?))::int AS second, count(*)
                  FROM outbox_message WHERE topic = ? AND status = 'DELIVERED'
                 GROUP BY 1 ORDER BY 1""")) {
            s.setObject(1, since);
            s.setString(2, topic);
            List<long[]> seconds = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    seconds.add(new long[] {r.getInt(1), r.getLong(2)});
                }
            }
            long[] counts = new long[seconds.isEmpty() ? 0 : (int) seconds.getLast()[0] + 1];
            for (long[] second : seconds) {
                counts[Math.max(0, (int) second[0])] += second[1]; // none precede the launch; clamp all the same
            }
            return counts;
        }
    }

    /** {@code topic}'s first claim and last delivery by the rows' own times; both null before any delivery. */
    public record Span(OffsetDateTime firstClaim, OffsetDateTime lastDelivery) {
    }

    /** {@code topic}'s {@link Span}. */
    public Span span(String schema, String topic) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT min(last_attempt_at), max(delivered_at) FROM outbox_message
                 WHERE topic = ? AND status = 'DELIVERED'""")) {
            s.setString(1, topic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new Span(r.getObject(1, OffsetDateTime.class), r.getObject(2, OffsetDateTime.class));
            }
        }
    }

    /** Rows of {@code topic} delivered in {@code [from, to)}, by their {@code delivered_at}. */
    public long deliveredBetween(String schema, String topic, OffsetDateTime from, OffsetDateTime to)
            throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                SELECT count(*) FROM outbox_message
                 WHERE topic = ? AND status = 'DELIVERED' AND delivered_at >= ? AND delivered_at < ?""")) {
            s.setString(1, topic);
            s.setObject(2, from);
            s.setObject(3, to);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    public Deliveries deliveries(String schema, String topic) throws SQLException {
        try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                WITH d AS (SELECT delivered_at, last_attempt_at FROM outbox_message
                            WHERE topic = ? AND status = 'DELIVERED'),
                     f AS (SELECT count(*) AS n, min(last_attempt_at) AS first_claim, max(delivered_at) AS last_delivery
                             FROM d)
                SELECT f.n / greatest(extract(epoch FROM f.last_delivery - f.first_claim), 0.001),
                       (SELECT string_agg(n::text, ' ' ORDER BY second)
                          FROM (SELECT floor(extract(epoch FROM d.delivered_at - f.first_claim))::int AS second,
                                       count(*) AS n
                                  FROM d GROUP BY 1) per_second),
                       to_char(f.first_claim AT TIME ZONE 'UTC', 'HH24:MI:SS.MS') || ' to '
                           || to_char(f.last_delivery AT TIME ZONE 'UTC', 'HH24:MI:SS.MS')
                  FROM f
                """)) {
            s.setString(1, topic);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return new Deliveries(r.getDouble(1), r.getString(2), r.getString(3));
            }
        }
    }
}
