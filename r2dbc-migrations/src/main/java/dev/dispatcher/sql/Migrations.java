package dev.dispatcher.sql;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Where Dispatcher's Flyway migrations live and where Flyway records them, for whoever migrates a database (the
 * service at start-up, the Spring Boot starter when asked, tests).
 *
 * <p>The location is Dispatcher's own, never Flyway's default {@code db/migration}: this jar also carries the SQL
 * statements applications' writers use, so it sits on their classpath, and an application's Flyway must not
 * mistake Dispatcher's {@code V1}/{@code V2} for its own. The history table is Dispatcher's own too, so both sets
 * can live in one database. Databases migrated when the files were under {@code db/migration} keep working: Flyway
 * records the file name, not the location, and versions, descriptions and checksums are unchanged ({@code SchemaIT}
 * checks them against the values recorded before the move).
 */
public final class Migrations {

    private Migrations() {
    }

    /** The Flyway location of Dispatcher's migrations. */
    public static final String LOCATION = "classpath:db/dispatcher/migration";

    /** Flyway's history table for Dispatcher's migrations, in Dispatcher's schema. */
    public static final String HISTORY_TABLE = "dispatcher_schema_history";

    private static final int DEFAULT_PORT = 5432;

    /** r2dbc-postgresql's file options and the pgjdbc connection properties they become. */
    private static final Map<String, String> SSL_VALUES = Map.of("sslRootCert", "sslrootcert", "sslCert", "sslcert",
            "sslKey", "sslkey", "sslHostnameVerifier", "sslhostnameverifier");
    /** The {@code sslmode} values r2dbc-postgresql and pgjdbc share. */
    private static final Set<String> SSL_MODES =
            Set.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");
    private static final Set<String> SSL_NEGOTIATIONS = Set.of("postgres", "direct");

    /**
     * The JDBC URL of the database an R2DBC connection reaches, for migrating an R2DBC application's database over
     * JDBC: {@code r2dbc:[pool:]postgresql://host[:port]/db?sslMode=verify-full&sslRootCert=/etc/pg/root.crt}
     * becomes {@code jdbc:postgresql://host:port/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fpg%2Froot.crt}, so
     * migrations connect with the same transport security as the application.
     *
     * <p>Carried over, under pgjdbc's names: {@code sslMode} (or its alias {@code sslmode}; {@code ssl=true}
     * without a mode is {@code verify-full}, as r2dbc-postgresql reads it), {@code sslRootCert}, {@code sslCert},
     * {@code sslKey}, {@code sslHostnameVerifier} (a class name) and {@code sslNegotiation}. File options must be
     * file paths (pgjdbc reads no classpath resources). An SSL setting that cannot be carried is refused rather than
     * dropped, so a migration never connects with weaker transport security than the application: {@code sslMode
     * =tunnel} and an {@code sslContextBuilderCustomizer} (JDBC has no equivalent), a value given as an object rather
     * than text, and {@code sslPassword} (in a JDBC URL, Flyway would print it in its start-up log line; use a key
     * file without a password, readable by the service only, or give migrations their own connection with
     * {@code spring.flyway.url}). Other options (timeouts, {@code applicationName}) are not carried over.
     *
     * @param option the value of the R2DBC connection option of a name ({@code driver}, {@code protocol}, {@code
     *     host}, {@code port}, {@code database}, {@code ssl}, {@code sslMode}, ...), e.g.
     *     {@code name -> options.getValue(Option.valueOf(name))}: this jar has no dependencies, the R2DBC SPI
     *     included
     * @throws IllegalArgumentException when they are not a PostgreSQL connection with a host, or hold an SSL setting
     *     JDBC cannot express, saying what they were
     */
    public static String jdbcUrlOfR2dbc(Function<String, Object> option) {
        Object driver = option.apply("driver");
        Object protocol = option.apply("protocol");
        Object host = option.apply("host");
        boolean postgres = "postgresql".equals(driver) || "postgres".equals(driver)
                || "pool".equals(driver) && protocol != null && protocol.toString().startsWith("postgres");
        if (!postgres || host == null) {
            throw new IllegalArgumentException("expected r2dbc:postgresql://host[:port]/database, but the driver was "
                    + driver + " and the host " + host);
        }
        Object port = option.apply("port");
        Object database = option.apply("database");
        List<String> ssl = sslParameters(option);
        return "jdbc:postgresql://" + host + ":" + (port == null ? DEFAULT_PORT : port) + "/"
                + (database == null ? "" : database) + (ssl.isEmpty() ? "" : "?" + String.join("&", ssl));
    }

    /** The pgjdbc SSL parameters ({@code name=url-encoded value}) of the R2DBC options, in a stable order. */
    private static List<String> sslParameters(Function<String, Object> option) {
        List<String> parameters = new ArrayList<>();
        String mode = sslMode(option);
        if (mode != null) {
            parameters.add("sslmode=" + mode);
        }
        Object negotiation = first(option, "sslNegotiation", "sslnegotiation");
        if (negotiation != null) {
            parameters.add("sslNegotiation=" + oneOf("sslNegotiation", negotiation, SSL_NEGOTIATIONS));
        }
        SSL_VALUES.entrySet().stream().sorted(Map.Entry.comparingByValue()).forEach(names -> {
            Object value = option.apply(names.getKey());
            if (value != null) {
                parameters.add(names.getValue() + "=" + URLEncoder.encode(text(names.getKey(), value),
                        StandardCharsets.UTF_8));
            }
        });
        if (option.apply("sslContextBuilderCustomizer") != null) {
            throw new IllegalArgumentException("the R2DBC option sslContextBuilderCustomizer has no JDBC equivalent");
        }
        if (option.apply("sslPassword") != null) {
            throw new IllegalArgumentException("the R2DBC option sslPassword is not written into a JDBC URL, which"
                    + " Flyway logs; use a client key without a password or a connection of its own for migrations");
        }
        return parameters;
    }

    private static String sslMode(Function<String, Object> option) {
        Object mode = first(option, "sslMode", "sslmode");
        if (mode != null) {
            return oneOf("sslMode", mode, SSL_MODES);
        }
        Object ssl = option.apply("ssl");
        return ssl != null && Boolean.parseBoolean(ssl.toString().trim()) ? "verify-full" : null;
    }

    private static Object first(Function<String, Object> option, String name, String alias) {
        Object value = option.apply(name);
        return value != null ? value : option.apply(alias);
    }

    /** An enum-like value ({@code VERIFY_FULL}, {@code verify-full}) in pgjdbc's spelling, if JDBC knows it. */
    private static String oneOf(String name, Object value, Set<String> known) {
        String spelled = value.toString().trim().toLowerCase(Locale.ROOT).replace('_', '-');
        if (!known.contains(spelled)) {
            throw new IllegalArgumentException("the R2DBC option " + name + "=" + value
                    + " has no JDBC equivalent (pgjdbc knows " + known.stream().sorted().toList() + ")");
        }
        return spelled;
    }

    private static String text(String name, Object value) {
        if (!(value instanceof CharSequence text)) {
            throw new IllegalArgumentException("the R2DBC option " + name + " is a " + value.getClass().getName()
                    + ", which cannot be written into a JDBC URL; give it as text");
        }
        return text.toString();
    }
}
