package dev.dispatcher.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A dedicated in-process broker that authenticates its clients (SASL/PLAIN on the client listener) and authorizes
 * every request with KRaft's {@code StandardAuthorizer}, so a test runs a client as a principal with only the rights
 * it grants, as managed clusters run their services (least privilege).
 *
 * <p>Users are fixed at start: {@value #ADMIN}, a super user (what {@link #clientProperties()} and so the kit's
 * helpers connect as), and the names given to {@link #start}, each with the password {@code <name>-secret}. Those
 * have no right at all until a test grants one ({@link #allow}, {@link #allowProducer}, {@link #allowConsumer});
 * {@link #clientProperties(String)} connects as one of them. The controller listener stays plaintext inside the JVM,
 * and its principal ({@code ANONYMOUS}) is a super user, so the broker can talk to its controller. Started with
 * {@code creatingTopics}, the broker creates topics on first use ({@link EmbeddedKafkaServer#startCreatingTopics()}),
 * for principals allowed to create them. Starting takes a few seconds; the caller closes it.
 */
public final class SecuredKafka implements KafkaServer {

  /** The super user. */
  public static final String ADMIN = "admin";

  private static final String PLAIN_LOGIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
  private static final Duration ACL_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private final EmbeddedKafkaServer broker;

  private SecuredKafka(EmbeddedKafkaServer broker) {
    this.broker = broker;
  }

  /**
   * Starts a broker that knows {@value #ADMIN} and {@code users}.
   *
   * @param creatingTopics whether the broker creates topics on first use
   */
  public static SecuredKafka start(boolean creatingTopics, String... users) {
    Map<String, String> properties = new HashMap<>(creatingTopics ? EmbeddedKafkaServer.CREATING_TOPICS : Map.of());
    properties.putAll(security(users));
    return new SecuredKafka(EmbeddedKafkaServer.start(properties));
  }

  private static Map<String, String> security(String... users) {
    StringBuilder jaas = new StringBuilder(PLAIN_LOGIN + " required username=\"" + ADMIN + "\" password=\""
        + password(ADMIN) + "\"");
    List<String> all = new ArrayList<>(List.of(ADMIN));
    all.addAll(Arrays.asList(users));
    for (String user : all) {
      jaas.append(" user_").append(user).append("=\"").append(password(user)).append('"');
    }
    String client = EmbeddedKafkaServer.CLIENT_LISTENER;
    return Map.of(
        "listener.security.protocol.map", client + ":SASL_PLAINTEXT," + EmbeddedKafkaServer.CONTROLLER_LISTENER
            + ":PLAINTEXT",
        "sasl.enabled.mechanisms", "PLAIN",
        "sasl.mechanism.inter.broker.protocol", "PLAIN",
        "listener.name." + client.toLowerCase(Locale.ROOT) + ".plain.sasl.jaas.config", jaas.append(';').toString(),
        "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users", "User:" + ADMIN + ";User:ANONYMOUS");
  }

  private static String password(String user) {
    return user + "-secret";
  }

  @Override
  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** The super user's client settings. */
  @Override
  public Map<String, Object> clientProperties() {
    return clientProperties(ADMIN);
  }

  /** What a client connecting as {@code user} sets: the address, SASL_PLAINTEXT, PLAIN and the credentials. */
  public Map<String, Object> clientProperties(String user) {
    return Map.of(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
        SaslConfigs.SASL_MECHANISM, "PLAIN",
        SaslConfigs.SASL_JAAS_CONFIG, PLAIN_LOGIN + " required username=\"" + user + "\" password=\""
            + password(user) + "\";");
  }

  /**
   * Allows {@code user} {@code operations} on the resources {@code name} matches ({@code pattern}: the exact name,
   * or every name it prefixes), and waits until the broker enforces them.
   *
   * @throws IllegalStateException if the broker does not hold them within 30 seconds
   */
  public void allow(String user, ResourceType type, String name, PatternType pattern, AclOperation... operations) {
    ResourcePattern resource = new ResourcePattern(type, name, pattern);
    List<AclBinding> bindings = Arrays.stream(operations).map(operation -> new AclBinding(resource,
        new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW))).toList();
    Map<String, Object> config = new HashMap<>(clientProperties());
    config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ACL_TIMEOUT.toMillis());
    try (Admin admin = Admin.create(config)) {
      admin.createAcls(bindings).all().get(ACL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      awaitEnforced(admin, bindings);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while granting " + bindings, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot grant " + bindings + " on " + this, e);
    }
  }

  /** What a producer of the topics {@code topicPrefix} starts needs: Write and Describe on them. */
  public void allowProducer(String user, String topicPrefix) {
    allow(user, ResourceType.TOPIC, topicPrefix, PatternType.PREFIXED, AclOperation.WRITE, AclOperation.DESCRIBE);
  }

  /**
   * What a consumer of the topics {@code topicPrefix} starts, in the groups {@code groupPrefix} starts, needs: Read
   * on both.
   */
  public void allowConsumer(String user, String topicPrefix, String groupPrefix) {
    allow(user, ResourceType.TOPIC, topicPrefix, PatternType.PREFIXED, AclOperation.READ);
    allow(user, ResourceType.GROUP, groupPrefix, PatternType.PREFIXED, AclOperation.READ);
  }

  /**
   * Waits until the broker lists {@code bindings}: the broker answers {@code describeAcls} from its own
   * authorizer, so once they are listed they are enforced.
   */
  private static void awaitEnforced(Admin admin, List<AclBinding> bindings) throws Exception {
    Instant deadline = Instant.now().plus(ACL_TIMEOUT);
    while (true) {
      Set<AclBinding> held = new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values()
          .get(ACL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
      if (held.containsAll(bindings)) {
        return;
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("the broker does not hold " + bindings + " after " + ACL_TIMEOUT);
      }
      Thread.sleep(POLL_INTERVAL); // test thread waiting for the ACLs to reach the broker's authorizer
    }
  }

  @Override
  public void close() {
    broker.close();
  }

  @Override
  public String toString() {
    return "SecuredKafka[" + bootstrapServers() + "]";
  }
}
