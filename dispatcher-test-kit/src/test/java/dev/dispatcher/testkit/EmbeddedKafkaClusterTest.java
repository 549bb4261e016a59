package dev.dispatcher.testkit;

import static dev.dispatcher.testkit.EmbeddedKafkaServerTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One cluster for the class; each test leaves every broker running and every replica in sync. */
class EmbeddedKafkaClusterTest {

  private static final Duration AWAIT = Duration.ofSeconds(30);

  private static EmbeddedKafkaCluster cluster;

  @BeforeAll
  static void start() {
    cluster = EmbeddedKafkaCluster.start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @AfterEach
  void restartStoppedBrokers() {
    for (int id : cluster.brokerIds()) {
      if (!cluster.runningBrokers().contains(id)) {
        cluster.startBroker(id);
      }
    }
  }

  @Test
  void topicsAreReplicatedOnEveryBrokerWithTwoInSyncRequired() throws Exception {
    cluster.createTopic("kit-cluster-defaults", 3);
    cluster.createTopic("kit-cluster-defaults", 3); // idempotent

    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
      TopicDescription description = admin.describeTopics(Set.of("kit-cluster-defaults")).allTopicNames()
          .get(30, TimeUnit.SECONDS).get("kit-cluster-defaults");
      assertThat(description.partitions()).hasSize(3).allSatisfy(p -> {
        assertThat(p.replicas()).hasSize(EmbeddedKafkaCluster.BROKERS);
        assertThat(p.isr()).hasSize(EmbeddedKafkaCluster.BROKERS);
      });
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "kit-cluster-defaults");
      Config config = admin.describeConfigs(Set.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
      assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");
    }
    assertThat(cluster.runningBrokers()).containsExactlyInAnyOrder(0, 1, 2);
  }

  @Test
  void aRecordAckedByAllSurvivesItsLeadersStopAndTheNewLeaderTakesWrites() throws Exception {
    String topic = "kit-cluster-survive";
    cluster.createTopic(topic, 1);
    try (KafkaProducer<String, byte[]> producer = EmbeddedKafkaServerTest.producer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, "k", bytes("before"))).get(10, TimeUnit.SECONDS);
    }
    int leader = cluster.leaderOf(topic, 0);

    cluster.stopBroker(leader);
    int newLeader = cluster.awaitLeader(topic, 0, AWAIT);

    assertThat(newLeader).isNotEqualTo(leader);
    cluster.awaitIsr(topic, 2, AWAIT);
    try (KafkaProducer<String, byte[]> producer = EmbeddedKafkaServerTest.producer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, "k", bytes("after"))).get(10, TimeUnit.SECONDS);
    }
    assertThat(values(cluster.consume(topic, 2, AWAIT))).containsExactly("before", "after");

    cluster.startBroker(leader);
    cluster.awaitIsr(topic, EmbeddedKafkaCluster.BROKERS, AWAIT);
    assertThat(cluster.leaderOf(topic, 0)).as("no automatic move back to the preferred leader").isEqualTo(newLeader);
  }

  @Test
  void withTwoBrokersStoppedAMinInsyncTwoTopicRefusesWritesUntilABrokerReturns() throws Exception {
    String strict = "kit-cluster-strict";
    String lenient = "kit-cluster-lenient";
    cluster.createTopic(strict, 1);
    cluster.createTopic(lenient, 1, Map.of("min.insync.replicas", "1"));
    int leader = cluster.leaderOf(strict, 0);
    int second = cluster.brokerIds().stream().filter(id -> id != leader).findFirst().orElseThrow();

    cluster.stopBroker(leader);
    cluster.stopBroker(second);
    cluster.awaitIsr(strict, 1, AWAIT);
    cluster.awaitIsr(lenient, 1, AWAIT);

    // no retries: the broker's own answer, not the producer's timeout once retries ran out
    Map<String, Object> once = Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.RETRIES_CONFIG,
        0, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    try (KafkaProducer<String, byte[]> producer = EmbeddedKafkaServerTest.producer(cluster.bootstrapServers(), once)) {
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>(strict, "k", bytes("refused"))).get(15,
          TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(NotEnoughReplicasException.class);
      producer.send(new ProducerRecord<>(lenient, "k", bytes("taken"))).get(15, TimeUnit.SECONDS);
    }

    cluster.startBroker(second);
    cluster.awaitIsr(strict, 2, AWAIT);
    try (KafkaProducer<String, byte[]> producer = EmbeddedKafkaServerTest.producer(cluster.bootstrapServers())) {
      producer.send(new ProducerRecord<>(strict, "k", bytes("healed"))).get(15, TimeUnit.SECONDS);
    }
    assertThat(values(cluster.consume(strict, 1, AWAIT))).containsExactly("healed");
    assertThat(values(cluster.consume(lenient, 1, AWAIT))).containsExactly("taken");
  }

  @Test
  void stoppingAStoppedBrokerOrStartingARunningOneIsRefused() {
    assertThatThrownBy(() -> cluster.startBroker(0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broker 0 is running");
    assertThatThrownBy(() -> cluster.stopBroker(7)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no broker 7");
  }

  private static List<String> values(List<ConsumerRecord<String, byte[]>> records) {
    List<String> values = new ArrayList<>();
    records.forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
    return values;
  }
}
