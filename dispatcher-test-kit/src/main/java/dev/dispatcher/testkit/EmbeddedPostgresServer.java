package dev.dispatcher.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * PostgreSQL 17 started in-process from zonky's embedded binaries, in a fresh data directory under the system
 * temp directory that {@link #close()} deletes.
 *
 * <p>{@link #fast()} turns off {@code fsync}, {@code synchronous_commit} and {@code full_page_writes} for tests;
 * {@link #durable()} keeps them on for benchmarks. Both allow 300 connections with 256 MB shared buffers. The
 * binaries start as root too (zonky's build allows it). Starting blocks until the server accepts connections.
 * {@link #freeze()} and {@link #thaw()} stop and continue every process of the server, for fault tests of a
 * database that accepts connections but never answers; never on the shared server of {@link TestServers}.
 */
public final class EmbeddedPostgresServer implements PostgresServer {

  private static final String HOST = "localhost";
  private static final String DATABASE = "postgres";
  private static final String USERNAME = "postgres";
  // zonky's server trusts local connections: the password is never checked but drivers want one
  private static final String PASSWORD = "postgres";

  private static final Map<String, String> COMMON_SETTINGS = Map.of(
      "max_connections", "300",
      "shared_buffers", "256MB",
      "listen_addresses", HOST);
  private static final Map<String, String> FAST_SETTINGS = Map.of(
      "fsync", "off",
      "synchronous_commit", "off",
      "full_page_writes", "off");
  private static final Map<String, String> DURABLE_SETTINGS = Map.of(
      "fsync", "on",
      "synchronous_commit", "on",
      "full_page_writes", "on");

  private final EmbeddedPostgres postgres;
  private final boolean durable;
  private final Path dataDirectory;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, boolean durable, Path dataDirectory) {
    this.postgres = postgres;
    this.durable = durable;
    this.dataDirectory = dataDirectory;
  }

  /** Starts a server without durability (fsync, synchronous commit and full page writes off): for tests. */
  public static EmbeddedPostgresServer fast() {
    return start(FAST_SETTINGS, false);
  }

  /** Starts a server with fsync and synchronous commit on: for benchmarks that must measure real commits. */
  public static EmbeddedPostgresServer durable() {
    return start(DURABLE_SETTINGS, true);
  }

  private static EmbeddedPostgresServer start(Map<String, String> durability, boolean durable) {
    try {
      Path dataDirectory = Files.createTempDirectory("dispatcher-pg-");
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
          .setDataDirectory(dataDirectory)
          .setCleanDataDirectory(true);
      COMMON_SETTINGS.forEach(builder::setServerConfig);
      durability.forEach(builder::setServerConfig);
      return new EmbeddedPostgresServer(builder.start(), durable, dataDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
    }
  }

  /**
   * Stops the postmaster and every process it started with {@code SIGSTOP}: connections stay open and new ones are
   * accepted by the kernel, but nothing answers until {@link #thaw()}. No process is forked meanwhile, so {@link
   * #thaw()} continues the same set.
   *
   * @throws IllegalStateException if the processes cannot be signalled
   */
  public void freeze() {
    signal("-STOP");
  }

  /** Continues every process {@link #freeze()} stopped ({@code SIGCONT}). */
  public void thaw() {
    signal("-CONT");
  }

  private void signal(String signal) {
    try {
      long postmaster = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
      ProcessHandle server = ProcessHandle.of(postmaster)
          .orElseThrow(() -> new IllegalStateException("no postmaster " + postmaster));
      // the postmaster first: stopped, it forks no new child; a child may still exit on its own before it is
      // signalled (a backend whose client left, an autovacuum worker), which is no failure
      kill(signal, postmaster, true);
      for (ProcessHandle child : server.children().toList()) {
        kill(signal, child.pid(), false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot signal PostgreSQL on port " + port(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling PostgreSQL", e);
    }
  }

  private static void kill(String signal, long pid, boolean mustExist) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0 && (mustExist || !output.contains("No such process"))) {
      throw new IllegalStateException("kill " + signal + " " + pid + " failed: " + output);
    }
  }

  /** Whether this server commits durably ({@link #durable()}). */
  public boolean isDurable() {
    return durable;
  }

  @Override
  public String host() {
    return HOST;
  }

  @Override
  public int port() {
    return postgres.getPort();
  }

  @Override
  public String database() {
    return DATABASE;
  }

  @Override
  public String username() {
    return USERNAME;
  }

  @Override
  public String password() {
    return PASSWORD;
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded PostgreSQL on port " + port(), e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedPostgresServer[" + jdbcUrl() + (durable ? ", durable" : ", fast") + "]";
  }
}
