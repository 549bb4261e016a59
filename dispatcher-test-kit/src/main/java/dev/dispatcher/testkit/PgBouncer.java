package dev.dispatcher.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's {@code pgbouncer} in transaction pooling mode in front of a {@link PostgresServer}, as a process of its
 * own: an ini file and a user list written into a fresh temp directory, listening on a free loopback port. The
 * server side trusts local connections (the kit's embedded server does), so the pooler authenticates clients from its
 * user list and connects on without a password.
 *
 * <p>{@link #start} makes the calling test skip (a JUnit assumption, saying why) when {@value #BINARY} is not
 * installed; {@code .ci/run} installs it with apt. Run as root, the pooler runs as {@code nobody} ({@code -u}),
 * since PgBouncer refuses to run as root. {@link #close()} stops the process and deletes the
 * directory.
 *
 * <p>Settings: {@code pool_mode = transaction}; {@code ignore_startup_parameters = extra_float_digits} (every
 * PostgreSQL driver sends it; PgBouncer before 1.20 refuses it otherwise, as it refuses any startup parameter it does
 * not know, such as {@code search_path} or {@code plan_cache_mode}); {@code max_prepared_statements} is left out,
 * which Debian's 1.18 does not know, so named prepared statements do not survive a transaction.
 */
public final class PgBouncer implements AutoCloseable {

  /** Where Debian's package installs the binary. */
  public static final String BINARY = "/usr/sbin/pgbouncer";

  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

  private final Process process;
  private final Path directory;
  private final int port;
  private final PostgresServer server;

  private PgBouncer(Process process, Path directory, int port, PostgresServer server) {
    this.process = process;
    this.directory = directory;
    this.port = port;
    this.server = server;
  }

  /** Whether {@value #BINARY} is installed. */
  public static boolean installed() {
    return Files.isExecutable(Path.of(BINARY));
  }

  /**
   * Starts a pooler in transaction mode in front of {@code server} with a server pool of {@code poolSize} connections
   * per user, blocking until it accepts connections; skips the calling test when the binary is missing. It knows the
   * server's user and each of {@code users} (roles of the server, with the server user's password).
   */
  public static PgBouncer start(PostgresServer server, int poolSize, String... users) {
    Assumptions.assumeTrue(installed(), "PgBouncer is not installed (" + BINARY + "; .ci/run installs Debian's"
        + " pgbouncer package with apt): the tests through a transaction pooler are skipped");
    try {
      Path directory = Files.createTempDirectory("pgbouncer-");
      Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
      int port = freePort();
      Path ini = directory.resolve("pgbouncer.ini");
      Path userFile = directory.resolve("userlist.txt");
      StringBuilder userList = new StringBuilder();
      for (String user : concat(server.username(), users)) {
        userList.append('"').append(user).append("\" \"").append(server.password()).append("\"\n");
      }
      Files.writeString(userFile, userList, StandardCharsets.UTF_8);
      Files.writeString(ini, String.join("\n", List.of(
          "[databases]",
          server.database() + " = host=" + server.host() + " port=" + server.port() + " dbname=" + server.database(),
          "[pgbouncer]",
          "listen_addr = " + HOST,
          "listen_port = " + port,
          "unix_socket_dir =",
          "auth_type = plain",
          "auth_file = " + userFile,
          "pool_mode = transaction",
          "default_pool_size = " + poolSize,
          "max_client_conn = 1000",
          "ignore_startup_parameters = extra_float_digits",
          "server_reset_query =",
          "logfile = " + directory.resolve("pgbouncer.log"),
          "pidfile = " + directory.resolve("pgbouncer.pid"),
          "")), StandardCharsets.UTF_8);
      for (Path file : List.of(ini, userFile)) {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
      }
      List<String> command = isRoot()
          ? List.of(BINARY, "-u", "nobody", ini.toString())
          : List.of(BINARY, ini.toString());
      Process process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(directory.resolve("stdout.log").toFile())
          .start();
      PgBouncer pooler = new PgBouncer(process, directory, port, server);
      pooler.awaitAccepting();
      return pooler;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start PgBouncer", e);
    }
  }

  private void awaitAccepting() throws IOException {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("PgBouncer exited with " + process.exitValue() + ": " + log());
      }
      try (Socket probe = new Socket(HOST, port)) {
        return;
      } catch (IOException notYet) {
        if (Instant.now().isAfter(deadline)) {
          close();
          throw new IllegalStateException("PgBouncer did not accept connections within " + START_TIMEOUT
              + ": " + log());
        }
        try {
          // a process start-up poll with a hard deadline, in the kit (not a test's wait)
          TimeUnit.MILLISECONDS.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while PgBouncer started", e);
        }
      }
    }
  }

  private static List<String> concat(String first, String... rest) {
    List<String> all = new java.util.ArrayList<>(List.of(rest));
    all.addFirst(first);
    return all;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  public String host() {
    return HOST;
  }

  public int port() {
    return port;
  }

  /** The R2DBC URL of the pooled database, for {@code spring.r2dbc.url}. */
  public String r2dbcUrl() {
    return "r2dbc:postgresql://" + HOST + ":" + port + "/" + server.database();
  }

  /** The user the pooler knows, the server's. */
  public String username() {
    return server.username();
  }

  public String password() {
    return server.password();
  }

  /** The pooler's log so far (connections, errors such as an unsupported startup parameter). */
  public String log() {
    StringBuilder text = new StringBuilder();
    for (String name : List.of("pgbouncer.log", "stdout.log")) {
      Path file = directory.resolve(name);
      try {
        if (Files.exists(file)) {
          text.append(Files.readString(file, StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        text.append("(").append(name).append(" unreadable: ").append(e).append(")\n");
      }
    }
    return text.toString();
  }

  /**
   * The lines of {@link #log()} PgBouncer wrote at {@code WARNING} or above: a refused startup parameter, a server
   * error passed to a client, a client closed for a protocol error.
   */
  public List<String> errors() {
    return log().lines().filter(line -> line.contains(" WARNING ") || line.contains(" ERROR ")
        || line.contains(" FATAL ")).toList();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (var files = Files.walk(directory)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temp directory left behind is harmless
    }
  }
}
