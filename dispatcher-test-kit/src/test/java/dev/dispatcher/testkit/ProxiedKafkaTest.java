package dev.dispatcher.testkit;

import static dev.dispatcher.testkit.EmbeddedKafkaServerTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ProxiedKafkaTest {

  private static final String TOPIC = "kit-proxied";
  private static final Map<String, Object> FAIL_FAST = Map.of(
      ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000,
      ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
      ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000,
      ProducerConfig.LINGER_MS_CONFIG, 0,
      ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);

  private static ProxiedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = TestServers.kafkaBehindProxy();
    kafka.direct().createTopic(TOPIC, 1);
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void cuttingTheProxyCutsProducerTrafficUntilRestored() throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        EmbeddedKafkaServerTest.producer(kafka.bootstrapServers(), FAIL_FAST)) {
      producer.send(new ProducerRecord<>(TOPIC, "k", bytes("before"))).get(10, TimeUnit.SECONDS);
      assertThat(kafka.proxy().activeConnections()).isPositive();

      kafka.proxy().cut();

      assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TOPIC, "k", bytes("during"))).get())
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TimeoutException.class);

      kafka.proxy().restore();

      producer.send(new ProducerRecord<>(TOPIC, "k", bytes("after"))).get(10, TimeUnit.SECONDS);
    }

    assertThat(kafka.direct().consume(TOPIC, 2, Duration.ofSeconds(10)))
        .extracting(record -> new String(record.value(), StandardCharsets.UTF_8))
        .containsExactly("before", "after");
  }

  @Test
  void directClientsIgnoreTheProxyWhileProxiedOnesStayBehindIt() throws Exception {
    String topic = "kit-proxied-direct";
    kafka.direct().createTopic(topic, 1);
    try (KafkaProducer<String, byte[]> producer =
        EmbeddedKafkaServerTest.producer(kafka.direct().bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, "k", bytes("stored"))).get(10, TimeUnit.SECONDS);
    }

    kafka.proxy().cut();
    try {
      assertThat(kafka.consume(topic, 1, Duration.ofSeconds(1))).isEmpty();
      assertThat(kafka.direct().consume(topic, 1, Duration.ofSeconds(10))).hasSize(1);
    } finally {
      kafka.proxy().restore();
    }
    assertThat(kafka.consume(topic, 1, Duration.ofSeconds(10))).hasSize(1);
  }
}
