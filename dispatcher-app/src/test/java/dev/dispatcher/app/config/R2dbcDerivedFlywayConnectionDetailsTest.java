package dev.dispatcher.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import org.junit.jupiter.api.Test;

/** Flyway's JDBC URL keeps the R2DBC URL's SSL settings, whether they come in the URL or as properties. */
class R2dbcDerivedFlywayConnectionDetailsTest {

    @Test
    void sslOptionsOfTheUrlBecomePgjdbcParameters() {
        ConnectionFactoryOptions options = ConnectionFactoryOptions.parse("r2dbc:pool:postgresql://app:secret@db:5433/"
                + "orders?sslMode=verify-full&sslRootCert=/etc/pg/root.crt&maxSize=20");

        assertThat(R2dbcDerivedFlywayConnectionDetails.jdbcUrl(options))
                .isEqualTo("jdbc:postgresql://db:5433/orders?sslmode=verify-full&sslrootcert=%2Fetc%2Fpg%2Froot.crt");
    }

    @Test
    void sslOptionsGivenAsPropertiesAreCarriedToo() {
        // what Boot adds for spring.r2dbc.properties.sslMode and .sslCert
        ConnectionFactoryOptions options = ConnectionFactoryOptions.parse("r2dbc:postgresql://db/orders").mutate()
                .option(Option.valueOf("sslMode"), "require").option(Option.valueOf("sslCert"), "/c.crt")
                .option(Option.valueOf("sslKey"), "/c.pk8").build();

        assertThat(R2dbcDerivedFlywayConnectionDetails.jdbcUrl(options))
                .isEqualTo("jdbc:postgresql://db:5432/orders?sslmode=require&sslcert=%2Fc.crt&sslkey=%2Fc.pk8");
    }

    @Test
    void anSslSettingJdbcCannotCarryStopsStartUpNamingIt() {
        ConnectionFactoryOptions options =
                ConnectionFactoryOptions.parse("r2dbc:postgresql://db/orders?sslMode=tunnel");

        assertThatIllegalStateException().isThrownBy(() -> R2dbcDerivedFlywayConnectionDetails.jdbcUrl(options))
                .withMessageStartingWith("spring.flyway.url is not set and cannot be derived from the R2DBC"
                        + " connection:")
                .withMessageContaining("sslMode=tunnel");
    }
}
