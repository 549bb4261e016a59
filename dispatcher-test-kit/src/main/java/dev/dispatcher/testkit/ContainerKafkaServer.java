package dev.dispatcher.testkit;

import org.testcontainers.kafka.KafkaContainer;

/**
 * Kafka in a Testcontainers {@code apache/kafka} container (KRaft, one node), for machines with Docker.
 *
 * <p>Needs {@code testcontainers-kafka} at runtime (an optional dependency of the kit); this class is only loaded
 * when {@link TestServers} runs in container mode.
 */
final class ContainerKafkaServer implements KafkaServer {

  static final String IMAGE = "apache/kafka:4.1.2";

  private final KafkaContainer container;

  private ContainerKafkaServer(KafkaContainer container) {
    this.container = container;
  }

  static KafkaServer start() {
    KafkaContainer container = new KafkaContainer(IMAGE)
        .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
        .withEnv("KAFKA_MIN_INSYNC_REPLICAS", "1")
        .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
    container.start();
    return new ContainerKafkaServer(container);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public void close() {
    container.stop();
  }
}
