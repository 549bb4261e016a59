package dev.dispatcher.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What the relay and the inbox left in the database for given messages: their statuses and, for dead letters,
 * {@code last_error}. The waits of {@link DispatcherTestRelay} read these; every statement finds its rows by primary
 * key ({@code outbox_message.id}, {@code inbox_message (consumer_name, message_id)}), so a poll costs an index look-up
 * per message, whatever the table's size.
 */
final class DurableStatuses {

    static final String DELIVERED = "DELIVERED";
    static final String COMPLETED = "COMPLETED";
    static final String DEAD_LETTERED = "DEAD_LETTERED";
    /** How many dead letters a failure names. */
    static final int SHOWN = 5;

    private static final String OUTBOX_COUNTS =
            "SELECT status, count(*) FROM outbox_message WHERE id = ANY(?) GROUP BY status";
    private static final String OUTBOX_DEAD_LETTERS =
            "SELECT id::text, last_error FROM outbox_message WHERE id = ANY(?) AND status = 'DEAD_LETTERED'"
                    + " ORDER BY seq LIMIT " + SHOWN;
    private static final String OUTBOX_ONE = "SELECT status, last_error FROM outbox_message WHERE id = ?";
    private static final String INBOX_COUNTS = "SELECT status, count(*) FROM inbox_message"
            + " WHERE consumer_name = ? AND message_id = ANY(?) GROUP BY status";
    private static final String INBOX_DEAD_LETTERS = "SELECT message_id, last_error FROM inbox_message"
            + " WHERE consumer_name = ? AND message_id = ANY(?) AND status = 'DEAD_LETTERED' ORDER BY seq LIMIT "
            + SHOWN;

    private DurableStatuses() {
    }

    /**
     * The statuses of the messages of {@code ids} at one moment, with how many there are of each (ids not found
     * under {@link Counts#MISSING}), and the first few dead letters with their {@code last_error}.
     */
    record Counts(Map<String, Long> byStatus, Map<String, String> deadLetters) {

        static final String MISSING = "MISSING";

        long of(String status) {
            return byStatus.getOrDefault(status, 0L);
        }

        @Override
        public String toString() {
            return byStatus.toString();
        }
    }

    static Counts outbox(Connection c, Collection<UUID> ids) throws SQLException {
        UUID[] array = ids.toArray(UUID[]::new);
        Map<String, Long> byStatus = counts(c, OUTBOX_COUNTS, ids.size(), s -> s.setArray(1,
                c.createArrayOf("uuid", array)));
        Map<String, String> dead = byStatus.containsKey(DEAD_LETTERED)
                ? pairs(c, OUTBOX_DEAD_LETTERS, s -> s.setArray(1, c.createArrayOf("uuid", array)))
                : Map.of();
        return new Counts(byStatus, dead);
    }

    static Counts inbox(Connection c, String consumer, Collection<String> ids) throws SQLException {
        String[] array = ids.toArray(String[]::new);
        Binder bind = s -> {
            s.setString(1, consumer);
            s.setArray(2, c.createArrayOf("text", array));
        };
        Map<String, Long> byStatus = counts(c, INBOX_COUNTS, ids.size(), bind);
        Map<String, String> dead = byStatus.containsKey(DEAD_LETTERED) ? pairs(c, INBOX_DEAD_LETTERS, bind) : Map.of();
        return new Counts(byStatus, dead);
    }

    /** One message's status and {@code last_error} (null when it has none). */
    record Status(String status, String lastError) {
    }

    /** The status of outbox message {@code id}, or null if there is no such row. */
    static Status outboxOne(Connection c, UUID id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(OUTBOX_ONE)) {
            s.setObject(1, id);
            try (ResultSet row = s.executeQuery()) {
                return row.next() ? new Status(row.getString(1), row.getString(2)) : null;
            }
        }
    }

    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static Map<String, Long> counts(Connection c, String sql, int expected, Binder bind)
            throws SQLException {
        Map<String, Long> byStatus = new TreeMap<>();
        long found = 0;
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind.bind(s);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    byStatus.put(rows.getString(1), rows.getLong(2));
                    found += rows.getLong(2);
                }
            }
        }
        if (found < expected) {
            byStatus.put(Counts.MISSING, expected - found);
        }
        return byStatus;
    }

    private static Map<String, String> pairs(Connection c, String sql, Binder bind) throws SQLException {
        Map<String, String> pairs = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind.bind(s);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    pairs.put(rows.getString(1), rows.getString(2));
                }
            }
        }
        return pairs;
    }
}
