package dev.dispatcher.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JDBC URL of an R2DBC connection keeps its transport security, under pgjdbc's names. */
class MigrationsTest {

    private static Map<String, Object> postgres(Object... more) {
        Map<String, Object> options = new LinkedHashMap<>(Map.of("driver", "postgresql", "host", "db.internal",
                "port", 6432, "database", "orders"));
        for (int i = 0; i < more.length; i += 2) {
            options.put((String) more[i], more[i + 1]);
        }
        return options;
    }

    private static String jdbc(Map<String, Object> options) {
        return Migrations.jdbcUrlOfR2dbc(options::get);
    }

    @Test
    void withoutSslOptionsTheUrlHasNoParameters() {
        assertThat(jdbc(postgres())).isEqualTo("jdbc:postgresql://db.internal:6432/orders");
        assertThat(jdbc(postgres("ssl", false))).isEqualTo("jdbc:postgresql://db.internal:6432/orders");
    }

    @Test
    void sslModeAndFilesKeepTheirValuesUnderPgjdbcNames() {
        assertThat(jdbc(postgres("sslMode", "verify-full", "sslRootCert", "/etc/pg/root ca.crt",
                "sslCert", "/etc/pg/client.crt", "sslKey", "/etc/pg/client.pk8",
                "sslHostnameVerifier", "com.example.Verifier", "sslNegotiation", "direct")))
                .isEqualTo("jdbc:postgresql://db.internal:6432/orders?sslmode=verify-full&sslNegotiation=direct"
                        + "&sslcert=%2Fetc%2Fpg%2Fclient.crt&sslhostnameverifier=com.example.Verifier"
                        + "&sslkey=%2Fetc%2Fpg%2Fclient.pk8&sslrootcert=%2Fetc%2Fpg%2Froot+ca.crt");
    }

    @Test
    void modesAreReadAsR2dbcReadsThem() {
        assertThat(jdbc(postgres("sslmode", "require"))).endsWith("?sslmode=require");
        assertThat(jdbc(postgres("sslMode", "VERIFY_CA"))).as("an enum's name").endsWith("?sslmode=verify-ca");
        assertThat(jdbc(postgres("ssl", true))).as("r2dbc's enableSsl()").endsWith("?sslmode=verify-full");
        assertThat(jdbc(postgres("ssl", "true", "sslMode", "prefer"))).endsWith("?sslmode=prefer");
        assertThat(jdbc(postgres("driver", "pool", "protocol", "postgresql", "sslMode", "disable")))
                .isEqualTo("jdbc:postgresql://db.internal:6432/orders?sslmode=disable");
    }

    @Test
    void whatJdbcCannotCarryIsRefusedRatherThanDropped() {
        assertThatIllegalArgumentException().isThrownBy(() -> jdbc(postgres("sslMode", "tunnel")))
                .withMessageContaining("sslMode=tunnel has no JDBC equivalent");
        assertThatIllegalArgumentException().isThrownBy(() -> jdbc(postgres("sslContextBuilderCustomizer",
                (java.util.function.Function<Object, Object>) x -> x)))
                .withMessageContaining("sslContextBuilderCustomizer");
        assertThatIllegalArgumentException().isThrownBy(() -> jdbc(postgres("sslHostnameVerifier", new Object())))
                .withMessageContaining("sslHostnameVerifier is a java.lang.Object");
        assertThatIllegalArgumentException().isThrownBy(() -> jdbc(postgres("sslKey", "/k.pk8", "sslPassword", "s3")))
                .withMessageContaining("sslPassword").withMessageNotContaining("s3");
    }
}
