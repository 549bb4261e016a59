package dev.dispatcher.testkit;

import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * PostgreSQL in a Testcontainers {@code postgres:17.7} container, for machines with Docker.
 *
 * <p>Needs {@code testcontainers-postgresql} at runtime (an optional dependency of the kit); this class is only
 * loaded when {@link TestServers} runs in container mode.
 */
final class ContainerPostgresServer implements PostgresServer {

  static final String IMAGE = "postgres:17.7";

  private final PostgreSQLContainer container;

  private ContainerPostgresServer(PostgreSQLContainer container) {
    this.container = container;
  }

  static PostgresServer start() {
    PostgreSQLContainer container = new PostgreSQLContainer(IMAGE)
        .withCommand("postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "max_connections=300", "-c", "shared_buffers=256MB");
    container.start();
    return new ContainerPostgresServer(container);
  }

  @Override
  public String host() {
    return container.getHost();
  }

  @Override
  public int port() {
    return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
  }

  @Override
  public String database() {
    return container.getDatabaseName();
  }

  @Override
  public String username() {
    return container.getUsername();
  }

  @Override
  public String password() {
    return container.getPassword();
  }

  @Override
  public void close() {
    container.stop();
  }
}
