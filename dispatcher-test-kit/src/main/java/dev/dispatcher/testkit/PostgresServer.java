package dev.dispatcher.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A running PostgreSQL server for integration tests, embedded or in a container.
 *
 * <p>Tests isolate themselves with {@link #createSchema(String)} rather than a server each, and verify durable state
 * through {@link #openConnection()}, independent of the code under test. Implementations are thread-safe.
 */
public interface PostgresServer extends AutoCloseable {

  /** Flyway's history table, kept apart from an application's own migrations in the same database. */
  String SCHEMA_HISTORY_TABLE = "dispatcher_schema_history";

  /**
   * Where {@link #createSchema(String)} looks for Flyway migrations: Dispatcher's own location, never Flyway's default
   * {@code db/migration}, so an application's migrations on the same classpath are not mistaken for Dispatcher's.
   */
  String MIGRATION_LOCATION = "classpath:db/dispatcher/migration";

  /**
   * A server that runs elsewhere (the application's own), at {@code host:port} with {@code database} and these
   * credentials; closing it does nothing.
   */
  static PostgresServer of(String host, int port, String database, String username, String password) {
    return new ExternalServers.Postgres(host, port, database, username, password);
  }

  String host();

  int port();

  String database();

  String username();

  String password();

  default String jdbcUrl() {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database();
  }

  /** The R2DBC URL without credentials: {@code r2dbc:postgresql://host:port/database}. */
  default String r2dbcUrl() {
    return "r2dbc:postgresql://" + host() + ":" + port() + "/" + database();
  }

  /** A fresh JDBC connection in autocommit mode; the caller closes it. */
  default Connection openConnection() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), username(), password());
  }

  /**
   * {@link #openConnection()} with {@code schema} as its {@code search_path}, for checking durable state
   * independently of the code under test; the caller closes it (closed here if setting the path fails).
   */
  default Connection openConnection(String schema) throws SQLException {
    Connection c = openConnection();
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + schema);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * Creates a new schema named {@code prefix} (lowercased, reduced to {@code [a-z0-9_]}) plus a short random suffix,
   * and runs the Flyway migrations found at {@value #MIGRATION_LOCATION} into it, with history table
   * {@value #SCHEMA_HISTORY_TABLE} and no placeholder replacement. Without migrations on the classpath the schema is
   * only created.
   *
   * @return the schema name, a valid unquoted identifier
   * @throws IllegalStateException if the schema cannot be created or a migration fails
   */
  default String createSchema(String prefix) {
    return SchemaFactory.create(this, prefix);
  }

  /**
   * A fresh schema name as {@link #createSchema(String)} makes one, without creating anything: for a process that
   * creates and migrates its own schema (the service with Flyway's {@code create-schemas}).
   */
  static String uniqueSchemaName(String prefix) {
    return SchemaFactory.uniqueName(prefix);
  }

  /**
   * Drops {@code schema} and everything in it, if it exists. Benchmarks on an external server drop what they
   * created, so that autovacuum of earlier runs' tables does not take CPU from the next run's measurement.
   *
   * @throws IllegalArgumentException if {@code schema} is not a plain identifier
   * @throws SQLException if the server refuses
   */
  default void dropSchema(String schema) throws SQLException {
    if (!schema.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("not a plain schema name: " + schema);
    }
    try (Connection c = openConnection(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  /** Stops the server and deletes its data. */
  @Override
  void close();
}
