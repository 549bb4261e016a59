package dev.dispatcher.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaServerTest {

  private final KafkaServer kafka = TestServers.kafka();

  @Test
  void recordProducedToSharedBrokerIsConsumedBack() throws Exception {
    kafka.createTopic("kit-roundtrip", 3);
    kafka.createTopic("kit-roundtrip", 3); // idempotent

    try (KafkaProducer<String, byte[]> producer = producer(kafka.bootstrapServers())) {
      producer.send(new ProducerRecord<>("kit-roundtrip", "key-1", bytes("payload"))).get();
    }

    List<ConsumerRecord<String, byte[]>> records = kafka.consume("kit-roundtrip", 1, Duration.ofSeconds(15));
    assertThat(records).singleElement().satisfies(record -> {
      assertThat(record.key()).isEqualTo("key-1");
      assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("payload");
    });
  }

  @Test
  void consumeReturnsWhatArrivedWhenTheTimeoutPasses() {
    kafka.createTopic("kit-empty", 1);

    assertThat(kafka.consume("kit-empty", 1, Duration.ofMillis(500))).isEmpty();
  }

  @Test
  void deletedTopicsLeaveTheBrokerAndMissingOnesAreNoError() throws Exception {
    kafka.createTopic("kit-deleted", 2);

    kafka.deleteTopics(List.of("kit-deleted", "kit-never-created"));

    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      // the controller accepted the deletion; the broker's metadata may show it a moment later
      await("kit-deleted no longer listed").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .untilAsserted(() -> assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
              .doesNotContain("kit-deleted"));
    }
  }

  @Test
  void aBrokerCreatingTopicsCreatesANewTopicOnAProducersFirstSendAndTheSharedOneDoesNot() throws Exception {
    KafkaServer creating = TestServers.kafkaCreatingTopics();
    String topic = "kit-created-" + UUID.randomUUID();

    try (KafkaProducer<String, byte[]> producer = producer(creating.bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, "k", bytes("first"))).get(30, TimeUnit.SECONDS);
    }
    try (KafkaProducer<String, byte[]> producer = producer(kafka.bootstrapServers(),
        Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000))) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", bytes("first"))).get())
          .as("the shared broker does not create topics").hasRootCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    assertThat(creating.consume(topic, 1, Duration.ofSeconds(15))).singleElement()
        .satisfies(record -> assertThat(record.value()).isEqualTo(bytes("first")));
    try (Admin admin = Admin.create(creating.clientProperties())) {
      assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
          .partitions()).as("num.partitions of the creating broker").hasSize(3);
    }
  }

  static KafkaProducer<String, byte[]> producer(String bootstrapServers, Map<String, Object> overrides) {
    Map<String, Object> config = new HashMap<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
    config.putAll(overrides);
    return new KafkaProducer<>(config);
  }

  static KafkaProducer<String, byte[]> producer(String bootstrapServers) {
    return producer(bootstrapServers, Map.of());
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
