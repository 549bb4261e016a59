package dev.dispatcher.testkit;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Locale;
import org.flywaydb.core.Flyway;

/** Creates uniquely named schemas and migrates them with Flyway, for {@link PostgresServer#createSchema}. */
final class SchemaFactory {

  private static final String MIGRATION_RESOURCE =
      PostgresServer.MIGRATION_LOCATION.substring("classpath:".length());
  private static final int MAX_PREFIX_LENGTH = 40;
  private static final SecureRandom RANDOM = new SecureRandom();

  private SchemaFactory() {}

  static String create(PostgresServer server, String prefix) {
    String schema = uniqueName(prefix);
    try (Connection connection = server.openConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create schema " + schema + " on " + server.jdbcUrl(), e);
    }
    ClassLoader classLoader = classLoader();
    if (classLoader.getResource(MIGRATION_RESOURCE) != null) {
      migrate(server, schema, classLoader);
    }
    return schema;
  }

  static String uniqueName(String prefix) {
    String base = prefix == null ? "" : prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (base.isEmpty() || !Character.isLetter(base.charAt(0)) && base.charAt(0) != '_') {
      base = "s_" + base;
    }
    if (base.length() > MAX_PREFIX_LENGTH) {
      base = base.substring(0, MAX_PREFIX_LENGTH);
    }
    byte[] suffix = new byte[4];
    RANDOM.nextBytes(suffix);
    return base + "_" + HexFormat.of().formatHex(suffix);
  }

  private static void migrate(PostgresServer server, String schema, ClassLoader classLoader) {
    try {
      Flyway.configure(classLoader)
          .dataSource(server.jdbcUrl(), server.username(), server.password())
          .schemas(schema)
          .defaultSchema(schema)
          .createSchemas(false)
          .table(PostgresServer.SCHEMA_HISTORY_TABLE)
          .locations(PostgresServer.MIGRATION_LOCATION)
          .placeholderReplacement(false)
          .load()
          .migrate();
    } catch (RuntimeException e) {
      throw new IllegalStateException("Flyway migration of schema " + schema + " failed", e);
    }
  }

  private static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : SchemaFactory.class.getClassLoader();
  }
}
