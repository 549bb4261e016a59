package dev.dispatcher.app.config;

import dev.dispatcher.sql.Migrations;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.flyway.autoconfigure.FlywayConnectionDetails;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcConnectionDetails;
import org.springframework.util.function.SingletonSupplier;

/**
 * The JDBC form of the R2DBC connection: {@code r2dbc:[pool:]postgresql://host:port/db?sslMode=verify-full&...}
 * becomes {@code jdbc:postgresql://host:port/db?sslmode=verify-full&...} with the same user and password, so
 * migrations get the application's transport security ({@link Migrations#jdbcUrlOfR2dbc}: the SSL options, from the
 * URL or {@code spring.r2dbc.properties.*}; one that cannot be carried stops start-up). Other R2DBC options
 * (timeouts) are not carried over; set {@code spring.flyway.url} when migration needs them.
 */
final class R2dbcDerivedFlywayConnectionDetails implements FlywayConnectionDetails, JdbcConnectionDetails {

    private final Supplier<ConnectionFactoryOptions> options;

    R2dbcDerivedFlywayConnectionDetails(ObjectProvider<R2dbcConnectionDetails> r2dbc) {
        this.options = SingletonSupplier.of(() -> {
            R2dbcConnectionDetails details = r2dbc.getIfAvailable();
            if (details == null) {
                throw new IllegalStateException(
                        "spring.flyway.url is not set and cannot be derived because spring.r2dbc.url is not set");
            }
            return details.getConnectionFactoryOptions();
        });
    }

    @Override
    public String getJdbcUrl() {
        return jdbcUrl(options.get());
    }

    @Override
    public String getUsername() {
        return Objects.toString(options.get().getValue(ConnectionFactoryOptions.USER), null);
    }

    @Override
    public String getPassword() {
        Object password = options.get().getValue(ConnectionFactoryOptions.PASSWORD);
        return password == null ? null : password.toString();
    }

    @Override
    public String getDriverClassName() {
        return "org.postgresql.Driver";
    }

    static String jdbcUrl(ConnectionFactoryOptions options) {
        try {
            return Migrations.jdbcUrlOfR2dbc(name -> options.getValue(Option.valueOf(name)));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("spring.flyway.url is not set and cannot be derived from the R2DBC"
                    + " connection: " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "R2dbcDerivedFlywayConnectionDetails[password=******]";
    }
}
