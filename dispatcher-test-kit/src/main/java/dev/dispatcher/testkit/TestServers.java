package dev.dispatcher.testkit;

/**
 * The JVM-wide shared servers of integration tests, started on first use and stopped by a shutdown hook.
 *
 * <p>By default the servers run in-process ({@link EmbeddedPostgresServer#fast()}, {@link EmbeddedKafkaServer});
 * with the system property {@value #CONTAINERS_PROPERTY}{@code =true} they run in Testcontainers instead, which
 * needs Docker and the kit's optional Testcontainers dependencies. Callers must not close the shared servers.
 * Fault tests get their own broker from {@link #kafkaBehindProxy()}. All methods are thread-safe; the first call
 * blocks while its server starts, and a failed start is retried by the next call.
 */
public final class TestServers {

  /** The system property that selects Testcontainers. */
  public static final String CONTAINERS_PROPERTY = "dispatcher.test.containers";

  private static PostgresServer postgres;
  private static KafkaServer kafka;
  private static KafkaServer kafkaCreatingTopics;

  private TestServers() {}

  /** The shared PostgreSQL server (fast mode: no fsync). Isolate tests with {@link PostgresServer#createSchema}. */
  public static synchronized PostgresServer postgres() {
    if (postgres == null) {
      postgres = stopAtExit(useContainers()
          ? ContainerPostgresServer.start()
          : EmbeddedPostgresServer.fast(), "postgres");
    }
    return postgres;
  }

  /** The shared Kafka broker. Isolate tests with distinct topic names. */
  public static synchronized KafkaServer kafka() {
    if (kafka == null) {
      kafka = stopAtExit(useContainers() ? ContainerKafkaServer.start() : EmbeddedKafkaServer.start(), "kafka");
    }
    return kafka;
  }

  /**
   * A second shared broker, one that creates topics on first use ({@link EmbeddedKafkaServer#startCreatingTopics()},
   * {@code auto.create.topics.enable=true} as Kafka's default): for tests of what a new topic's records get there.
   * Always embedded, even in container mode. Isolate tests with distinct topic names.
   */
  public static synchronized KafkaServer kafkaCreatingTopics() {
    if (kafkaCreatingTopics == null) {
      kafkaCreatingTopics = stopAtExit(EmbeddedKafkaServer.startCreatingTopics(), "kafka-creating-topics");
    }
    return kafkaCreatingTopics;
  }

  /**
   * A new in-process broker whose clients all go through a {@link TcpProxy}, for fault tests; always embedded,
   * even in container mode. The caller closes it.
   */
  public static ProxiedKafka kafkaBehindProxy() {
    return ProxiedKafka.start();
  }

  static boolean useContainers() {
    return Boolean.getBoolean(CONTAINERS_PROPERTY);
  }

  private static <T extends AutoCloseable> T stopAtExit(T server, String name) {
    Thread hook = new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        // the JVM is exiting: nothing useful to do with a failed stop
      }
    }, "dispatcher-test-servers-stop-" + name);
    Runtime.getRuntime().addShutdownHook(hook);
    return server;
  }
}
