package dev.dispatcher.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.r2dbc.spi.ConnectionFactoryOptions;
import org.junit.jupiter.api.Test;

/** The starter migrates an R2DBC application's database with the SSL settings of its R2DBC URL. */
class R2dbcMigrationConnectionTest {

    @Test
    void theJdbcUrlKeepsTheSslSettings() {
        R2dbcMigrationConnection connection = new R2dbcMigrationConnection(ConnectionFactoryOptions.parse(
                "r2dbc:postgresql://db.internal/shop?sslmode=verify-ca&sslRootCert=/run/secrets/pg-ca.pem"));

        assertThat(connection.jdbcUrl())
                .isEqualTo("jdbc:postgresql://db.internal:5432/shop?sslmode=verify-ca"
                        + "&sslrootcert=%2Frun%2Fsecrets%2Fpg-ca.pem");
    }

    @Test
    void aSettingThatCannotBeCarriedIsRefused() {
        R2dbcMigrationConnection connection = new R2dbcMigrationConnection(ConnectionFactoryOptions.parse(
                "r2dbc:postgresql://db.internal/shop?sslKey=/k.pk8&sslPassword=hunter2"));

        assertThatIllegalStateException().isThrownBy(connection::jdbcUrl)
                .withMessageContaining("dispatcher.client.migrate").withMessageContaining("sslPassword")
                .withMessageNotContaining("hunter2");
    }
}
