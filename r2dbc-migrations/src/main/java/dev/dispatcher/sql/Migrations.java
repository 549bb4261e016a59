package dev.dispatcher.sql;

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

    /**
     * The JDBC URL of the database an R2DBC connection reaches, for migrating an R2DBC application's database over
     * JDBC: {@code r2dbc:[pool:]postgresql://host[:port]/db} becomes {@code jdbc:postgresql://host:port/db}.
     * R2DBC-only options (SSL, timeouts) are not carried over.
     *
     * @param option the value of the R2DBC connection option of a name ({@code driver}, {@code protocol}, {@code
     *     host}, {@code port}, {@code database}), e.g. {@code name -> options.getValue(Option.valueOf(name))}: this
     *     jar has no dependencies, the R2DBC SPI included
     * @throws IllegalArgumentException when they are not a PostgreSQL connection with a host, saying what they were
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
        return "jdbc:postgresql://" + host + ":" + (port == null ? DEFAULT_PORT : port) + "/"
                + (database == null ? "" : database);
    }
}
