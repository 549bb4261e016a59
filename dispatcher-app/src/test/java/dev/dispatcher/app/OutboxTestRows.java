package dev.dispatcher.app;

import dev.dispatcher.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Outbox rows written and read straight through PostgreSQL, as an application (or an operator) would. */
final class OutboxTestRows {

    private OutboxTestRows() {
    }

    /** Inserts {@code n} rows of {@code topic} over 16 keys into {@code schema}; returns their ids. */
    static List<String> insert(PostgresServer server, String schema, String topic, int n) throws SQLException {
        List<String> ids = new ArrayList<>(n);
        try (Connection c = server.openConnection(schema); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox_message (topic, message_key, event_type, payload)"
                        + " SELECT ?, 'k' || (g % 16), 'Test', convert_to('{\"n\":' || g || '}', 'UTF8')"
                        + " FROM generate_series(1, ?) g RETURNING id::text")) {
            insert.setString(1, topic);
            insert.setInt(2, n);
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        }
        return ids;
    }

    /** How many of {@code ids} are DELIVERED in {@code schema}, read through a fresh connection. */
    static long delivered(PostgresServer server, String schema, List<String> ids) throws SQLException {
        try (Connection c = server.openConnection(schema); PreparedStatement q = c.prepareStatement(
                "SELECT count(*) FROM outbox_message WHERE status = 'DELIVERED' AND id = ANY(?::uuid[])")) {
            q.setArray(1, c.createArrayOf("text", ids.toArray()));
            try (ResultSet rows = q.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
