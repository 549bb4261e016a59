package dev.dispatcher.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresServerTest {

  private final PostgresServer postgres = TestServers.postgres();

  /** A frozen server of its own keeps its connections but answers nothing until it is thawed. */
  @Test
  void aFrozenServerAnswersNothingUntilThawed() throws SQLException {
    try (EmbeddedPostgresServer own = EmbeddedPostgresServer.fast();
        Connection connection = java.sql.DriverManager.getConnection(own.jdbcUrl() + "?socketTimeout=2",
            own.username(), own.password());
        Statement statement = connection.createStatement()) {
      own.freeze();
      long started = System.nanoTime();
      try {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> statement.executeQuery("select 1"))
            .isInstanceOf(SQLException.class).hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
        assertThat(System.nanoTime() - started).as("it waited for an answer").isGreaterThan(1_500_000_000L);
      } finally {
        own.thaw();
      }
      try (Connection fresh = own.openConnection(); Statement s = fresh.createStatement();
          ResultSet result = s.executeQuery("select 1")) {
        assertThat(result.next()).as("thawed: a new connection is answered").isTrue();
      }
    }
  }

  @Test
  void sharedServerAnswersQueries() throws SQLException {
    try (Connection connection = postgres.openConnection(); Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("select 1")) {
      assertThat(connection.getAutoCommit()).isTrue();
      assertThat(result.next()).isTrue();
      assertThat(result.getInt(1)).isEqualTo(1);
    }
  }

  @Test
  void sharedServerRunsFastAndAsConfigured() throws SQLException {
    assertThat(setting("fsync")).isEqualTo("off");
    assertThat(setting("synchronous_commit")).isEqualTo("off");
    assertThat(setting("max_connections")).isEqualTo("300");
    assertThat(setting("server_version")).startsWith("17.7");
  }

  @Test
  void createSchemaReturnsDistinctUsableSchemas() throws SQLException {
    String first = postgres.createSchema("Relay-IT");
    String second = postgres.createSchema("Relay-IT");

    assertThat(first).isNotEqualTo(second).matches("relay_it_[0-9a-f]{8}");
    try (Connection connection = postgres.openConnection(); Statement statement = connection.createStatement()) {
      for (String schema : new String[] {first, second}) {
        try (ResultSet result = statement.executeQuery("select version from " + schema + ".dispatcher_schema_history")) {
          assertThat(result.next()).isTrue();
          assertThat(result.getString(1)).isEqualTo("1");
        }
        statement.execute("insert into " + schema + ".kit_probe (note) values ('${not_a_placeholder}')");
      }
    }
  }

  @Test
  void schemaNamesAreValidIdentifiersForAnyPrefix() {
    assertThat(SchemaFactory.uniqueName("1st")).matches("s_1st_[0-9a-f]{8}");
    assertThat(SchemaFactory.uniqueName("")).matches("s__[0-9a-f]{8}");
    assertThat(SchemaFactory.uniqueName("x".repeat(100))).hasSizeLessThanOrEqualTo(63);
  }

  @Test
  void urlsPointAtTheServer() {
    assertThat(postgres.r2dbcUrl())
        .isEqualTo("r2dbc:postgresql://" + postgres.host() + ":" + postgres.port() + "/" + postgres.database());
    assertThat(postgres.jdbcUrl()).startsWith("jdbc:postgresql://");
  }

  private String setting(String name) throws SQLException {
    try (Connection connection = postgres.openConnection(); Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("show " + name)) {
      result.next();
      return result.getString(1);
    }
  }
}
