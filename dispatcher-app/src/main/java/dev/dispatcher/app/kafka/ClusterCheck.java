package dev.dispatcher.app.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.KafkaFuture;
import reactor.core.publisher.Mono;

/**
 * Asks the cluster who it is ({@code describeCluster}) with one long-lived admin client, for the {@code kafka}
 * health component. Each check is one admin request, issued at subscription, never at assembly; the admin client
 * does its I/O on its own thread, so the calling thread only enqueues the request and the check is safe on an event
 * loop. Close it with the application.
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

    /** Waits for a Kafka future without cancelling it: Kafka's futures refuse completion from outside. */
    private static <T> Mono<T> fromKafka(KafkaFuture<T> future) {
        return Mono.fromFuture(() -> future.toCompletionStage().toCompletableFuture(), true);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
