package dev.dispatcher.testkit;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A running Kafka cluster for integration tests, in-process or in a container.
 *
 * <p>{@link #createTopic}, {@link #deleteTopics} and {@link #consume} use their own short-lived clients, so tests
 * can prepare and remove topics and verify what reached Kafka independently of the code under test.
 * Implementations are thread-safe.
 */
public interface KafkaServer extends AutoCloseable {

  /**
   * A cluster that runs elsewhere (the application's own), reached at {@code bootstrapServers}; closing it does
   * nothing.
   */
  static KafkaServer of(String bootstrapServers) {
    return new ExternalServers.Kafka(bootstrapServers);
  }

  /** The {@code bootstrap.servers} value clients use. */
  String bootstrapServers();

  /**
   * What a client of this server needs to connect with every right: {@code bootstrap.servers}, and, on a server that
   * authenticates its clients, the security settings of a super user. The kit's own helpers ({@link #createTopic},
   * {@link #consume}) connect with these.
   */
  default Map<String, Object> clientProperties() {
    return Map.of("bootstrap.servers", bootstrapServers());
  }

  /**
   * Creates {@code name} with {@code partitions} partitions and replication factor 1, and waits until every
   * partition has a leader. Does nothing if the topic exists.
   *
   * @throws IllegalStateException if the topic is not ready within 30 seconds
   */
  default void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * {@link #createTopic(String, int)} with topic-level {@code configs} (for example {@code max.message.bytes} or
   * {@code min.insync.replicas}), so a test can make a topic that refuses what the broker as a whole accepts.
   *
   * @throws IllegalStateException if the topic is not ready within 30 seconds
   */
  default void createTopic(String name, int partitions, Map<String, String> configs) {
    KafkaClients.createTopic(clientProperties(), name, partitions, configs);
  }

  /**
   * Deletes {@code names} and waits until the broker has accepted each deletion; a topic that does not exist is
   * not an error.
   *
   * @throws IllegalStateException if a deletion fails or is not accepted within 30 seconds
   */
  default void deleteTopics(Collection<String> names) {
    KafkaClients.deleteTopics(clientProperties(), names);
  }

  /**
   * Reads {@code topic} from the beginning with a fresh consumer group and {@code read_committed} isolation until
   * {@code expectedCount} records arrived or {@code timeout} passed. Never throws on timeout: it returns what it
   * read, in the order polled, so the caller's assertion shows what is missing.
   */
  default List<ConsumerRecord<String, byte[]>> consume(String topic, int expectedCount, Duration timeout) {
    return KafkaClients.consume(clientProperties(), topic, expectedCount, timeout);
  }

  /** Stops the broker and deletes its logs. */
  @Override
  void close();
}
