package dev.dispatcher.testkit;

import java.util.HashMap;
import java.util.Map;
import kafka.server.BrokerServer;
import org.apache.kafka.common.network.ListenerName;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A real single-node KRaft Kafka cluster (combined broker and controller) running in this JVM, from
 * spring-kafka-test's {@link EmbeddedKafkaKraftBroker}.
 *
 * <p>Topics are not created on first use ({@code auto.create.topics.enable=false}, as production brokers run):
 * a test creates the topics it uses ({@link #createTopic}), and a client that sends to or reads from any other topic
 * meets an unknown topic, as it would in production. {@link #startCreatingTopics()} starts one that does create them
 * ({@code auto.create.topics.enable=true}, Kafka's default, as many development and managed clusters run): a
 * producer's metadata request for a topic that does not exist creates it, with 3 partitions. Every internal topic has replication factor 1, so
 * transactions and idempotent producers with {@code acks=all} work. The broker listens on an ephemeral loopback
 * port; its logs live in a temporary directory deleted by {@link #close()}. Starting blocks until the broker is
 * ready (a few seconds). Unlike spring-kafka-test used directly, starting leaves the
 * {@code spring.embedded.kafka.brokers} system property as it was.
 */
public final class EmbeddedKafkaServer implements KafkaServer {

  /** The name of the client listener of spring-kafka-test's cluster (Kafka's {@code TestKitDefaults}). */
  static final String CLIENT_LISTENER = "EXTERNAL";
  static final String CONTROLLER_LISTENER = "CONTROLLER";

  private static final Map<String, String> BROKER_PROPERTIES = Map.of(
      "auto.create.topics.enable", "false",
      "offsets.topic.replication.factor", "1",
      "transaction.state.log.replication.factor", "1",
      "transaction.state.log.min.isr", "1",
      "min.insync.replicas", "1",
      // fewer internal partitions: the first consumer group and transaction start in milliseconds, not seconds
      "offsets.topic.num.partitions", "5",
      "transaction.state.log.num.partitions", "5",
      "group.initial.rebalance.delay.ms", "0");

  private final EmbeddedKafkaKraftBroker broker;

  private EmbeddedKafkaServer(EmbeddedKafkaKraftBroker broker) {
    this.broker = broker;
  }

  /** Starts a broker. */
  public static EmbeddedKafkaServer start() {
    return start(Map.of());
  }

  /**
   * Starts a broker that creates a topic when a producer first asks for it ({@code auto.create.topics.enable=true},
   * {@code num.partitions=3}); everything else as {@link #start()}.
   */
  public static EmbeddedKafkaServer startCreatingTopics() {
    return start(CREATING_TOPICS);
  }

  /** What {@link #startCreatingTopics()} sets on top of the kit's broker properties. */
  static final Map<String, String> CREATING_TOPICS = Map.of(
      "auto.create.topics.enable", "true",
      "num.partitions", "3");

  /** Starts a broker with {@code overrides} on top of the kit's broker properties (listeners, for example). */
  static EmbeddedKafkaServer start(Map<String, String> overrides) {
    Map<String, String> properties = new HashMap<>(BROKER_PROPERTIES);
    properties.putAll(overrides);
    EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
    broker.brokerProperties(properties);
    String previous = System.getProperty(EmbeddedKafkaBroker.SPRING_EMBEDDED_KAFKA_BROKERS);
    try {
      broker.afterPropertiesSet();
    } finally {
      restoreProperty(EmbeddedKafkaBroker.SPRING_EMBEDDED_KAFKA_BROKERS, previous);
    }
    return new EmbeddedKafkaServer(broker);
  }

  /** The port the broker bound for {@code listenerName}. */
  int boundPort(String listenerName) {
    BrokerServer server = broker.getCluster().brokers().values().iterator().next();
    return server.boundPort(ListenerName.normalised(listenerName));
  }

  @Override
  public String bootstrapServers() {
    return broker.getBrokersAsString();
  }

  @Override
  public void close() {
    broker.destroy();
  }

  @Override
  public String toString() {
    return "EmbeddedKafkaServer[" + bootstrapServers() + "]";
  }

  private static void restoreProperty(String name, String previous) {
    if (previous == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, previous);
    }
  }
}
