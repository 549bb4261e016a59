package dev.dispatcher.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's migration of an R2DBC application reaches a PostgreSQL that refuses unencrypted connections
 * ({@code hostnossl ... reject}), over TLS with the SSL settings of {@code spring.r2dbc.url}: with the server's own
 * certificate as root it migrates; with another root it fails on the certificate, which shows the settings reached
 * the JDBC driver (dropped, pgjdbc's default {@code prefer} would have connected without checking anything). The
 * server runs with a self-signed certificate made here with the JDK's {@code keytool}.
 */
class R2dbcMigrationOverTlsIT {

    private static Path directory;
    private static EmbeddedPostgres postgres;
    private static Path serverCertificate;
    private static Path otherCertificate;

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(R2dbcAutoConfiguration.class,
                    DispatcherClientAutoConfiguration.class));

    @BeforeAll
    static void startPostgresThatRefusesPlainConnections() throws Exception {
        directory = Files.createTempDirectory("dispatcher-tls-");
        serverCertificate = directory.resolve("server.crt");
        Path serverKey = directory.resolve("server.key");
        selfSigned("localhost", serverCertificate, serverKey);
        otherCertificate = directory.resolve("other.crt");
        selfSigned("localhost", otherCertificate, directory.resolve("other.key"));
        Path hba = directory.resolve("pg_hba.conf");
        Files.writeString(hba, """
                local all all trust
                hostnossl all all all reject
                hostssl all all 127.0.0.1/32 trust
                hostssl all all ::1/128 trust
                """);
        postgres = EmbeddedPostgres.builder()
                .setDataDirectory(directory.resolve("data"))
                .setCleanDataDirectory(true)
                .setServerConfig("listen_addresses", "localhost")
                .setServerConfig("ssl", "on")
                .setServerConfig("ssl_cert_file", serverCertificate.toString())
                .setServerConfig("ssl_key_file", serverKey.toString())
                .setServerConfig("hba_file", hba.toString())
                .start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void migratesOverTlsWithTheRootCertificateOfTheR2dbcUrl() throws SQLException {
        String database = createDatabase("tls_ok");
        application.withPropertyValues(
                        "spring.r2dbc.url=r2dbc:postgresql://localhost:" + postgres.getPort() + "/" + database
                                + "?sslMode=verify-full&sslRootCert=" + serverCertificate,
                        "spring.r2dbc.username=postgres",
                        "dispatcher.schema=outbox",
                        "dispatcher.client.migrate=true")
                .run(context -> assertThat(context).hasNotFailed());

        try (Connection c = tls(database); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM outbox.dispatcher_schema_history"
                        + " WHERE version IS NOT NULL AND success")) {
            r.next();
            assertThat(r.getInt(1)).isEqualTo(StarterTestDatabases.dispatcherMigrationVersions().size());
        }
    }

    @Test
    void aRootCertificateThatDoesNotMatchTheServerStopsTheMigration() throws SQLException {
        String database = createDatabase("tls_wrong_root");
        application.withPropertyValues(
                        "spring.r2dbc.url=r2dbc:postgresql://localhost:" + postgres.getPort() + "/" + database,
                        "spring.r2dbc.properties.sslMode=verify-ca",
                        "spring.r2dbc.properties.sslRootCert=" + otherCertificate,
                        "spring.r2dbc.username=postgres",
                        "dispatcher.schema=outbox",
                        "dispatcher.client.migrate=true")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("SSL error"));

        try (Connection c = tls(database); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = 'outbox'")) {
            r.next();
            assertThat(r.getInt(1)).as("nothing migrated").isZero();
        }
    }

    @Test
    void theServerRefusesConnectionsWithoutTls() {
        assertThatThrownBy(() -> DriverManager.getConnection(jdbcUrl("postgres") + "?sslmode=disable", "postgres", ""))
                .isInstanceOf(SQLException.class).hasMessageContaining("no encryption");
    }

    private static String createDatabase(String prefix) throws SQLException {
        String name = prefix + "_" + Long.toHexString(System.nanoTime());
        try (Connection c = tls("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return name;
    }

    /** A verification connection, over TLS like every other this server accepts. */
    private static Connection tls(String database) throws SQLException {
        Connection c = DriverManager.getConnection(jdbcUrl(database) + "?sslmode=verify-full&sslrootcert="
                + serverCertificate, "postgres", "");
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            r.next();
            assertThat(r.getBoolean(1)).as("pg_stat_ssl of the verification connection").isTrue();
        }
        return c;
    }

    private static String jdbcUrl(String database) {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + database;
    }

    /**
     * A self-signed certificate for {@code host} (and 127.0.0.1) and its private key, as PEM files PostgreSQL reads:
     * made with the JDK's keytool in a PKCS#12 store, then written out as X.509 and PKCS#8.
     */
    private static void selfSigned(String host, Path certificate, Path key) throws Exception {
        Path store = Files.createTempFile(directory, "keys", ".p12");
        Files.delete(store);
        char[] password = "changeit".toCharArray();
        run(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", "pg",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=" + host,
                "-ext", "SAN=dns:" + host + ",ip:127.0.0.1", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, password);
        }
        Certificate cert = keys.getCertificate("pg");
        Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", keys.getKey("pg", password).getEncoded()));
        // PostgreSQL refuses a key file others may read
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
