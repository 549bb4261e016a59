package dev.dispatcher.app.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import reactor.core.publisher.Mono;

/**
 * Asks the cluster about itself with one long-lived admin client: who it is ({@code describeCluster}, for the
 * {@code kafka} health component) and how durable a topic's acknowledged records are ({@link #topicDurability}).
 * Each check is issued at subscription, never at assembly; the admin client does its I/O on its own thread, so the
 * calling thread only enqueues the request and the check is safe on an event loop. Close it with the application.
 */
public final class ClusterCheck implements AutoCloseable {

    /** What the cluster answered. */
    public record ClusterInfo(String clusterId, int brokers) {
    }

    private final Admin admin;

    /** A check with an admin client of {@code adminProperties}. */
    public ClusterCheck(Map<String, Object> adminProperties) {
        this.admin = Admin.create(adminProperties);
    }

    /** The cluster id and broker count, or an error when the cluster does not answer within {@code timeout}. */
    public Mono<ClusterInfo> describe(Duration timeout) {
        return Mono.defer(() -> {
                    DescribeClusterResult cluster = admin.describeCluster(
                            new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()));
                    return Mono.zip(fromKafka(cluster.clusterId()), fromKafka(cluster.nodes()));
                })
                .map(result -> new ClusterInfo(result.getT1(), result.getT2().size()))
                // the admin request carries the same timeout; this one also bounds a client that never answers
                .timeout(timeout.plusSeconds(1));
    }

    /**
     * The broker count and {@code topic}'s effective {@code min.insync.replicas}, or an error when the cluster does
     * not answer within {@code timeout}, the topic does not exist, or the client may not describe its configuration.
     */
    public Mono<TopicDurability> topicDurability(String topic, Duration timeout) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return Mono.defer(() -> {
                    int millis = (int) timeout.toMillis();
                    return Mono.zip(
                            fromKafka(admin.describeCluster(new DescribeClusterOptions().timeoutMs(millis)).nodes()),
                            fromKafka(admin.describeConfigs(List.of(resource),
                                    new DescribeConfigsOptions().timeoutMs(millis)).values().get(resource)));
                })
                .map(result -> new TopicDurability(topic, result.getT1().size(),
                        minInsyncReplicas(result.getT2())))
                .timeout(timeout.plusSeconds(1));
    }

    private static int minInsyncReplicas(Config config) {
        ConfigEntry entry = config.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
        // absent only from a broker that hides it; Kafka's default is 1
        return entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value().trim());
    }

    /** Waits for a Kafka future without cancelling it: Kafka's futures refuse completion from outside. */
    private static <T> Mono<T> fromKafka(KafkaFuture<T> future) {
        return Mono.fromFuture(() -> future.toCompletionStage().toCompletableFuture(), true);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
