package dev.dispatcher.boot;

import io.r2dbc.spi.ConnectionFactoryOptions;
import java.util.Objects;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Flyway's JDBC connection to an R2DBC application's database: {@code r2dbc:[pool:]postgresql://host:port/db}
 * becomes {@code jdbc:postgresql://host:port/db} with the same user and password. R2DBC-only options (SSL,
 * timeouts) are not carried over. Needs the PostgreSQL JDBC driver; its absence is reported when the migration is
 * set up, naming the switch that asked for it.
 */
final class R2dbcMigrationConnection implements DispatcherMigration.Connection {

    private static final int DEFAULT_PORT = 5432;
    private static final String DRIVER = "org.postgresql.Driver";

    private final ConnectionFactoryOptions options;

    R2dbcMigrationConnection(ConnectionFactoryOptions options) {
        this.options = options;
    }

    @Override
    public FluentConfiguration apply(FluentConfiguration flyway) {
        try {
            Class.forName(DRIVER, false, R2dbcMigrationConnection.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("dispatcher.client.migrate is true in an R2DBC application, which"
                    + " migrates over JDBC: add the PostgreSQL JDBC driver (org.postgresql:postgresql)", e);
        }
        Object password = options.getValue(ConnectionFactoryOptions.PASSWORD);
        return flyway.dataSource(jdbcUrl(), Objects.toString(options.getValue(ConnectionFactoryOptions.USER), null),
                password == null ? null : password.toString());
    }

    String jdbcUrl() {
        Object driver = options.getValue(ConnectionFactoryOptions.DRIVER);
        Object protocol = options.getValue(ConnectionFactoryOptions.PROTOCOL);
        boolean postgres = "postgresql".equals(driver) || "postgres".equals(driver)
                || "pool".equals(driver) && protocol != null && protocol.toString().startsWith("postgres");
        Object host = options.getValue(ConnectionFactoryOptions.HOST);
        if (!postgres || host == null) {
            throw new IllegalStateException("dispatcher.client.migrate is true, but the R2DBC connection is not"
                    + " r2dbc:postgresql://host[:port]/database (driver " + driver + ", host " + host + ")");
        }
        Object port = options.getValue(ConnectionFactoryOptions.PORT);
        Object database = options.getValue(ConnectionFactoryOptions.DATABASE);
        return "jdbc:postgresql://" + host + ":" + (port == null ? DEFAULT_PORT : port) + "/"
                + (database == null ? "" : database);
    }

    @Override
    public String toString() {
        return "R2dbcMigrationConnection[password=******]";
    }
}
