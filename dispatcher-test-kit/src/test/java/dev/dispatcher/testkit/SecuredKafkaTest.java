package dev.dispatcher.testkit;

import static dev.dispatcher.testkit.EmbeddedKafkaServerTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SecuredKafkaTest {

  private static SecuredKafka kafka;

  @BeforeAll
  static void start() {
    kafka = SecuredKafka.start(false, "writer", "reader");
    kafka.createTopic("kit-secured.orders", 1);
    kafka.createTopic("kit-other", 1);
    kafka.allowProducer("writer", "kit-secured.");
    kafka.allowConsumer("reader", "kit-secured.", "kit-readers");
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void aProducerWritesItsTopicsOnlyAndAConsumerReadsThemInItsGroupOnly() throws Exception {
    try (KafkaProducer<String, byte[]> writer = producer("writer")) {
      writer.send(new ProducerRecord<>("kit-secured.orders", "k", bytes("allowed"))).get(30, TimeUnit.SECONDS);
      assertThatThrownBy(() -> writer.send(new ProducerRecord<>("kit-other", "k", bytes("denied")))
          .get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(TopicAuthorizationException.class);
    }

    assertThat(read("reader", "kit-readers-1")).extracting(ConsumerRecord::value)
        .containsExactly(bytes("allowed"));
    assertThatThrownBy(() -> read("reader", "someone-elses-group"))
        .isInstanceOf(GroupAuthorizationException.class);
    assertThat(kafka.consume("kit-secured.orders", 1, Duration.ofSeconds(15)))
        .as("the kit's own helpers connect as the super user").hasSize(1);
  }

  @Test
  void aUserWithoutRightsIsRefusedAndAWrongPasswordIsNotLetIn() {
    try (KafkaProducer<String, byte[]> reader = producer("reader")) {
      // an idempotent producer needs Write on some topic (or IdempotentWrite) for its producer id
      assertThatThrownBy(() -> reader.send(new ProducerRecord<>("kit-secured.orders", "k", bytes("x")))
          .get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(ClusterAuthorizationException.class);
    }
    Map<String, Object> impostor = new HashMap<>(kafka.clientProperties("writer"));
    impostor.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"
        + " username=\"writer\" password=\"guessed\";");
    impostor.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
    try (KafkaProducer<String, byte[]> producer = EmbeddedKafkaServerTest.producer(kafka.bootstrapServers(),
        impostor)) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("kit-secured.orders", "k", bytes("x")))
          .get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(SaslAuthenticationException.class);
    }
  }

  private static KafkaProducer<String, byte[]> producer(String user) {
    return EmbeddedKafkaServerTest.producer(kafka.bootstrapServers(), kafka.clientProperties(user));
  }

  /** Reads the topic from the beginning in {@code group} until one record came, or fails as the broker refuses. */
  private static List<ConsumerRecord<String, byte[]>> read(String user, String group) {
    Map<String, Object> config = new HashMap<>(kafka.clientProperties(user));
    config.putAll(Map.of(
        ConsumerConfig.GROUP_ID_CONFIG, group,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of("kit-secured.orders"));
      // a refusal is thrown by poll and ends the wait with it
      await("a record read as " + user).atMost(Duration.ofSeconds(30)).pollInSameThread()
          .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
          .until(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            return !records.isEmpty();
          });
    }
    return records;
  }
}
