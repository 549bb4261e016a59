package dev.dispatcher.sql;

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
}
