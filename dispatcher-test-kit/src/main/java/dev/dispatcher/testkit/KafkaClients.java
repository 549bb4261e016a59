package dev.dispatcher.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The short-lived admin and consumer clients behind {@link KafkaServer}'s default methods, each made from a
 * server's {@link KafkaServer#clientProperties()} (its address, and its credentials where it asks for them).
 */
final class KafkaClients {

  private static final Duration TOPIC_READY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private KafkaClients() {}

  static void deleteTopics(Map<String, Object> client, Collection<String> names) {
    if (names.isEmpty()) {
      return;
    }
    try (Admin admin = Admin.create(client)) {
      for (var deletion : admin.deleteTopics(names).topicNameValues().entrySet()) {
        try {
          deletion.getValue().get(TOPIC_READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
            throw e;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while deleting topics " + names, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot delete topics " + names + " on " + servers(client), e);
    }
  }

  static void createTopic(Map<String, Object> client, String name, int partitions, Map<String, String> configs) {
    Map<String, Object> config = new HashMap<>(client);
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TOPIC_READY_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(config)) {
      try {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
            .get(TOPIC_READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      awaitLeaders(admin, name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name + " on " + servers(client), e);
    }
  }

  private static void awaitLeaders(Admin admin, String name) throws Exception {
    Instant deadline = Instant.now().plus(TOPIC_READY_TIMEOUT);
    while (true) {
      try {
        TopicDescription description = admin.describeTopics(Set.of(name)).allTopicNames().get().get(name);
        if (description.partitions().stream().allMatch(partition -> partition.leader() != null)) {
          awaitServing(admin, name, description.partitions().size());
          return;
        }
      } catch (ExecutionException e) {
        // metadata not propagated yet: retry until the deadline
        if (Instant.now().isAfter(deadline)) {
          throw e;
        }
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("topic " + name + " has partitions without a leader after "
            + TOPIC_READY_TIMEOUT);
      }
      Thread.sleep(POLL_INTERVAL); // test thread waiting for topic metadata, never a Reactor thread
    }
  }

  /**
   * Waits until every partition's leader serves requests for it. The metadata a broker describes can name a leader
   * before that broker has made its replica the leader; a produce request in that gap is refused
   * ({@code NOT_LEADER_OR_FOLLOWER}), and an idempotent producer that then has a later batch of the partition accepted
   * retries the refused one with an out-of-order sequence until its delivery timeout. ListOffsets is answered by the
   * leader's replica only, so once it answers for every partition, so does produce. In a cluster, the broker the
   * admin client asks for metadata may not know the topic yet although another one described it in sync: that answer
   * ({@code UNKNOWN_TOPIC_OR_PARTITION}) is asked again until the deadline.
   */
  static void awaitServing(Admin admin, String name, int partitions) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(name, p), OffsetSpec.latest());
    }
    Instant deadline = Instant.now().plus(TOPIC_READY_TIMEOUT);
    while (true) {
      try {
        // the admin client retries NOT_LEADER_OR_FOLLOWER itself within its default API timeout (TOPIC_READY_TIMEOUT)
        admin.listOffsets(latest).all().get(TOPIC_READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || Instant.now().isAfter(deadline)) {
          throw e;
        }
      }
      Thread.sleep(POLL_INTERVAL); // test thread waiting for topic metadata, never a Reactor thread
    }
  }

  static List<ConsumerRecord<String, byte[]>> consume(Map<String, Object> client, String topic, int expectedCount,
      Duration timeout) {
    Map<String, Object> config = new HashMap<>(client);
    config.putAll(Map.of(
        ConsumerConfig.GROUP_ID_CONFIG, "dispatcher-test-kit-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    Instant deadline = Instant.now().plus(timeout);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      while (records.size() < expectedCount) {
        Duration remaining = Duration.between(Instant.now(), deadline);
        if (remaining.isNegative() || remaining.isZero()) {
          break; // read once: a second clock read could land past the deadline and give a negative timeout
        }
        if (consumer.assignment().isEmpty()) {
          assignAll(consumer, topic, remaining);
          continue;
        }
        consumer.poll(min(remaining, POLL_INTERVAL)).forEach(records::add);
      }
    }
    return records;
  }

  // Assigning every partition directly avoids waiting for a group rebalance; the fresh group id commits nothing.
  private static void assignAll(KafkaConsumer<String, byte[]> consumer, String topic, Duration remaining) {
    List<PartitionInfo> partitions;
    try {
      partitions = consumer.partitionsFor(topic, min(remaining, Duration.ofSeconds(1)));
    } catch (TimeoutException e) {
      return; // no metadata yet (broker unreachable): the caller retries until its deadline
    }
    if (partitions.isEmpty()) {
      sleep(min(remaining, POLL_INTERVAL));
      return;
    }
    List<TopicPartition> topicPartitions =
        partitions.stream().map(partition -> new TopicPartition(topic, partition.partition())).toList();
    consumer.assign(topicPartitions);
    consumer.seekToBeginning(topicPartitions);
  }

  /** The {@code bootstrap.servers} of {@code client}, for messages. */
  private static Object servers(Map<String, Object> client) {
    return client.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration); // test thread between consumer polls
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a topic", e);
    }
  }
}
