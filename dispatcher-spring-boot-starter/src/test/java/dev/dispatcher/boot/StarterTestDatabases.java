package dev.dispatcher.boot;

import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Fresh databases on the shared test server, as an application would start on, and reads through JDBC. */
final class StarterTestDatabases {

    static final PostgresServer postgres = TestServers.postgres();

    private StarterTestDatabases() {
    }

    /** A new, empty database; its name. */
    static String create(String prefix) {
        String name = prefix + "_" + Long.toHexString(System.nanoTime());
        try (Connection c = postgres.openConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    static String jdbcUrl(String database) {
        return "jdbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/" + database;
    }

    static String r2dbcUrl(String database) {
        return "r2dbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/" + database;
    }

    /**
     * Dispatcher's migrations as the client jar ships them ("version description", in version order), so the
     * history checks follow new migrations instead of pinning today's list.
     */
    static List<String> dispatcherMigrations() {
        try {
            var resources = new org.springframework.core.io.support.PathMatchingResourcePatternResolver()
                    .getResources("classpath*:db/dispatcher/migration/V*__*.sql");
            java.util.TreeMap<Integer, String> byVersion = new java.util.TreeMap<>();
            for (var resource : resources) {
                var m = java.util.regex.Pattern.compile("V(\\d+)__(.+)\\.sql").matcher(resource.getFilename());
                if (m.matches()) {
                    byVersion.put(Integer.parseInt(m.group(1)), m.group(1) + " " + m.group(2).replace('_', ' '));
                }
            }
            return List.copyOf(byVersion.values());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> dispatcherMigrationVersions() {
        return dispatcherMigrations().stream().map(m -> m.substring(0, m.indexOf(' '))).toList();
    }

    /** Every row of a one- or two-column query, columns joined with a space. */
    static List<String> rows(String database, String sql, Object... parameters) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(jdbcUrl(database), postgres.username(),
                postgres.password()); PreparedStatement q = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                q.setObject(i + 1, parameters[i]);
            }
            List<String> rows = new ArrayList<>();
            try (ResultSet r = q.executeQuery()) {
                int columns = r.getMetaData().getColumnCount();
                while (r.next()) {
                    StringBuilder row = new StringBuilder(String.valueOf(r.getObject(1)));
                    for (int i = 2; i <= columns; i++) {
                        row.append(' ').append(r.getObject(i));
                    }
                    rows.add(row.toString());
                }
            }
            return rows;
        }
    }
}
