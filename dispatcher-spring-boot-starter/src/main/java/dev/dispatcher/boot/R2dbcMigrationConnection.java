package dev.dispatcher.boot;

import dev.dispatcher.sql.Migrations;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import java.util.Objects;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Flyway's JDBC connection to an R2DBC application's database ({@link Migrations#jdbcUrlOfR2dbc}), with the same
 * user, password and SSL settings ({@code sslMode}, {@code sslRootCert}, {@code sslCert}, {@code sslKey}, ... under
 * pgjdbc's names), so migrations connect as securely as the application; an SSL setting JDBC cannot carry stops
 * start-up rather than being dropped. Needs the PostgreSQL JDBC driver; its absence is reported when the migration
 * is set up, naming the switch that asked for it.
 */
final class R2dbcMigrationConnection implements DispatcherMigration.Connection {

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
        try {
            return Migrations.jdbcUrlOfR2dbc(name -> options.getValue(Option.valueOf(name)));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("dispatcher.client.migrate is true, but the R2DBC connection cannot be"
                    + " reached over JDBC: " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "R2dbcMigrationConnection[password=******]";
    }
}
