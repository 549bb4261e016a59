package dev.dispatcher.testkit;

import java.util.Objects;

/**
 * Servers that run elsewhere (an application's own PostgreSQL and Kafka: a CI service, a container it manages), seen
 * through the kit's interfaces so that whatever takes a {@link PostgresServer} or a {@link KafkaServer} works on them
 * too. Closing one does nothing: whoever started the server stops it.
 */
final class ExternalServers {

  private ExternalServers() {}

  /** {@link PostgresServer#of}. */
  record Postgres(String host, int port, String database, String username, String password)
      implements PostgresServer {

    Postgres {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(database, "database");
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be between 1 and 65535, but was " + port);
      }
    }

    @Override
    public void close() {
      // not ours to stop
    }

    @Override
    public String toString() {
      return "PostgresServer[" + jdbcUrl() + ", user " + username + ", password ******]";
    }
  }

  /** {@link KafkaServer#of}. */
  record Kafka(String bootstrapServers) implements KafkaServer {

    Kafka {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new IllegalArgumentException("bootstrap servers are needed, but were '" + bootstrapServers + "'");
      }
    }

    @Override
    public void close() {
      // not ours to stop
    }
  }
}
