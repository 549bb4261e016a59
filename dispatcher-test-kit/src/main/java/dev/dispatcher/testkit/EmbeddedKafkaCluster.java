package dev.dispatcher.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real three-broker KRaft Kafka cluster in this JVM, whose brokers a test stops and starts one at a time, from
 * Kafka's own {@link KafkaClusterTestKit}: brokers 0, 1 and 2, and one controller of their own (the quorum never
 * stops with a broker).
 *
 * <p>Run as production clusters are: topics replicated three times, {@code min.insync.replicas=2}, no automatic
 * topic creation, internal topics (consumer offsets, transaction state) replicated three times with two in sync,
 * so {@code acks=all}, consumer groups and idempotent producers outlive the loss of one broker and a topic refuses
 * writes ({@code NotEnoughReplicas}) once two are gone. Leaders move only when their broker stops (no automatic
 * leader rebalancing), so a test knows who leads.
 *
 * <p>{@link #stopBroker} is abrupt: the broker closes its sockets without a controlled shutdown, as a crashed
 * process would, so leadership does not move until the controller misses its heartbeats ({@value #SESSION_TIMEOUT_MS}
 * ms) and fences it; meanwhile clients see refused connections. {@link #startBroker} brings it back on the same
 * port, so {@link #bootstrapServers()} stays valid. Logs live in a temporary directory deleted by {@link #close()}.
 * Starting takes a few seconds. Not thread-safe for concurrent stops and starts of the same broker.
 */
public final class EmbeddedKafkaCluster implements KafkaServer {

  /** How many brokers the cluster runs. */
  public static final int BROKERS = 3;
  /** How long the controller waits for a silent broker's heartbeat before fencing it. */
  public static final int SESSION_TIMEOUT_MS = 3_000;

  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaCluster.class);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private static final Map<String, String> BROKER_PROPERTIES = Map.ofEntries(
      Map.entry("auto.create.topics.enable", "false"),
      Map.entry("default.replication.factor", "3"),
      Map.entry("min.insync.replicas", "2"),
      Map.entry("unclean.leader.election.enable", "false"),
      Map.entry("auto.leader.rebalance.enable", "false"),
      Map.entry("offsets.topic.replication.factor", "3"),
      Map.entry("offsets.topic.num.partitions", "5"),
      Map.entry("transaction.state.log.replication.factor", "3"),
      Map.entry("transaction.state.log.min.isr", "2"),
      Map.entry("transaction.state.log.num.partitions", "5"),
      Map.entry("group.initial.rebalance.delay.ms", "0"),
      // a stop is a crash: no hand-off of leadership, the controller fences the silent broker
      Map.entry("controlled.shutdown.enable", "false"),
      Map.entry("broker.heartbeat.interval.ms", "500"),
      Map.entry("broker.session.timeout.ms", String.valueOf(SESSION_TIMEOUT_MS)),
      // a follower whose leader is gone asks the new one soon
      Map.entry("replica.fetch.backoff.ms", "200"),
      // three brokers in one JVM on a small machine: few threads each
      Map.entry("num.network.threads", "2"),
      Map.entry("num.io.threads", "2"),
      Map.entry("background.threads", "2"),
      Map.entry("num.replica.fetchers", "1"),
      Map.entry("log.cleaner.threads", "1"));

  private final KafkaClusterTestKit cluster;
  private final String bootstrapServers;
  private final Admin admin;
  private final Set<Integer> running = new TreeSet<>();

  private EmbeddedKafkaCluster(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    // the ports are bound before the brokers start and kept across restarts, so this string never changes
    this.bootstrapServers = cluster.bootstrapServers();
    this.admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_TIMEOUT.toMillis(),
        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500));
    running.addAll(cluster.brokers().keySet());
  }

  /**
   * Starts the cluster and waits until every broker is registered and unfenced.
   *
   * @throws IllegalStateException if it cannot start
   */
  public static EmbeddedKafkaCluster start() {
    keepJvmOnBrokerExit();
    KafkaClusterTestKit cluster;
    try {
      KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
          .setCombined(false)
          .setBootstrapMetadataVersion(MetadataVersion.latestProduction()) // not the kit's unreleased default
          .setNumBrokerNodes(BROKERS)
          .setNumControllerNodes(1)
          .build());
      BROKER_PROPERTIES.forEach(builder::setConfigProp);
      cluster = builder.build();
    } catch (Exception e) {
      throw new IllegalStateException("cannot build a " + BROKERS + "-broker Kafka cluster", e);
    }
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new EmbeddedKafkaCluster(cluster);
    } catch (Exception e) {
      closeQuietly(cluster);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("cannot start a " + BROKERS + "-broker Kafka cluster", e);
    }
  }

  /** Every broker's address, running or not: clients skip the stopped ones. */
  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * Creates {@code name} with {@code partitions} partitions replicated on all three brokers, and waits until every
   * partition has a leader and all three replicas in sync. Does nothing if the topic exists.
   *
   * @throws IllegalStateException if the topic is not ready within 30 seconds
   */
  @Override
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * {@link #createTopic(String, int)} with topic-level {@code configs}, for example {@code min.insync.replicas}.
   *
   * @throws IllegalStateException if the topic is not ready within 30 seconds
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    NewTopic topic = new NewTopic(name, partitions, (short) BROKERS).configs(configs);
    try {
      admin.createTopics(List.of(topic)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name + " on " + this, e.getCause());
      }
    } catch (Exception e) {
      throw failure("creating topic " + name, e);
    }
    awaitIsr(name, BROKERS, ADMIN_TIMEOUT);
    try {
      // a new partition's ISR is full in its first metadata, before its leader serves it: wait for that as well
      KafkaClients.awaitServing(admin, name, partitions);
    } catch (Exception e) {
      throw failure("waiting for the leaders of topic " + name, e);
    }
  }

  /** The ids of all brokers, running or stopped. */
  public Set<Integer> brokerIds() {
    return Set.copyOf(cluster.brokers().keySet());
  }

  /** The ids of the brokers running now. */
  public synchronized Set<Integer> runningBrokers() {
    return Set.copyOf(running);
  }

  /**
   * The broker the cluster's metadata names as leader of {@code topic}'s {@code partition}, or -1 if none. Right
   * after {@link #stopBroker} this may still be the stopped broker, until the controller fences it.
   */
  public int leaderOf(String topic, int partition) {
    TopicPartitionInfo info = describe(topic).partitions().stream().filter(p -> p.partition() == partition)
        .findFirst().orElseThrow(() -> new IllegalArgumentException("no partition " + partition + " in " + topic));
    Node leader = info.leader();
    return leader == null || leader.isEmpty() ? -1 : leader.id();
  }

  /**
   * Stops broker {@code id} abruptly (no controlled shutdown) and returns once its sockets are closed; the controller
   * fences it after {@value #SESSION_TIMEOUT_MS} ms. Its logs are kept for {@link #startBroker}.
   *
   * @throws IllegalArgumentException if there is no such broker
   * @throws IllegalStateException if it is not running
   */
  public void stopBroker(int id) {
    BrokerServer broker = broker(id);
    synchronized (this) {
      if (!running.remove(id)) {
        throw new IllegalStateException("broker " + id + " is not running");
      }
    }
    log.info("stopping broker {} of {}", id, this);
    broker.shutdown();
  }

  /**
   * Starts stopped broker {@code id} again on its former port and logs, and waits until the controller has unfenced
   * it. Its replicas catch up afterwards; {@link #awaitIsr} waits for that.
   *
   * @throws IllegalArgumentException if there is no such broker
   * @throws IllegalStateException if it is running, or not unfenced within 30 seconds
   */
  public void startBroker(int id) {
    BrokerServer broker = broker(id);
    synchronized (this) {
      if (running.contains(id)) {
        throw new IllegalStateException("broker " + id + " is running");
      }
    }
    log.info("starting broker {} of {}", id, this);
    broker.startup();
    synchronized (this) {
      running.add(id);
    }
    await("broker " + id + " unfenced", ADMIN_TIMEOUT, () -> admin.describeCluster().nodes()
        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream().anyMatch(node -> node.id() == id));
  }

  /**
   * Waits until a running broker leads {@code topic}'s {@code partition} and returns its id.
   *
   * @throws IllegalStateException if none does within {@code timeout}
   */
  public int awaitLeader(String topic, int partition, Duration timeout) {
    await(topic + "-" + partition + " led by a running broker", timeout,
        () -> runningBrokers().contains(leaderOf(topic, partition)));
    return leaderOf(topic, partition);
  }

  /**
   * Waits until every partition of {@code topic} has a leader and exactly {@code size} in-sync replicas: {@code 1}
   * after two brokers stopped (writes needing two are refused from then on), {@link #BROKERS} once restarted
   * brokers caught up.
   *
   * @throws IllegalStateException if that does not happen within {@code timeout}
   */
  public void awaitIsr(String topic, int size, Duration timeout) {
    Predicate<TopicPartitionInfo> ready = p -> p.leader() != null && !p.leader().isEmpty() && p.isr().size() == size;
    await(topic + " with " + size + " in-sync replicas per partition", timeout,
        () -> describe(topic).partitions().stream().allMatch(ready));
  }

  /** Stops every broker and the controller and deletes their logs. */
  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
    closeQuietly(cluster);
  }

  @Override
  public synchronized String toString() {
    return "EmbeddedKafkaCluster[" + bootstrapServers + ", running " + running + "]";
  }

  private BrokerServer broker(int id) {
    BrokerServer broker = cluster.brokers().get(id);
    if (broker == null) {
      throw new IllegalArgumentException("no broker " + id + " in " + this + "; brokers are "
          + cluster.brokers().keySet());
    }
    return broker;
  }

  private TopicDescription describe(String topic) {
    try {
      return admin.describeTopics(Set.of(topic)).allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
    } catch (Exception e) {
      throw failure("describing topic " + topic, e);
    }
  }

  private interface Condition {
    boolean holds() throws Exception;
  }

  // Polls from the test thread; a condition that throws (metadata not propagated yet) counts as not holding.
  private void await(String what, Duration timeout, Condition condition) {
    Instant deadline = Instant.now().plus(timeout);
    Exception last = null;
    while (Instant.now().isBefore(deadline)) {
      try {
        if (condition.holds()) {
          return;
        }
        last = null;
      } catch (Exception e) {
        last = e;
      }
      try {
        Thread.sleep(POLL_INTERVAL); // a test thread waiting for the cluster, never a Reactor thread
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
    throw new IllegalStateException("no " + what + " within " + timeout + " on " + this + state(), last);
  }

  private String state() {
    try {
      return "; brokers unfenced: " + admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
          .map(Node::id).sorted().map(String::valueOf).collect(Collectors.joining(","));
    } catch (Exception e) {
      return "; brokers unknown (" + e + ")";
    }
  }

  private IllegalStateException failure(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    return new IllegalStateException("failed " + what + " on " + this, cause);
  }

  private static void closeQuietly(KafkaClusterTestKit cluster) {
    try {
      cluster.close();
    } catch (Exception e) {
      log.warn("failed to close the Kafka cluster cleanly", e);
    }
  }

  // A broker that meets a fatal error calls Exit, which by default ends the JVM (and the whole test run with it);
  // spring-kafka-test's embedded broker logs instead, and so do we.
  private static void keepJvmOnBrokerExit() {
    Exit.setExitProcedure((status, message) -> log.warn("Kafka called Exit.exit({}, {})", status, message));
    Exit.setHaltProcedure((status, message) -> log.warn("Kafka called Exit.halt({}, {})", status, message));
  }
}
