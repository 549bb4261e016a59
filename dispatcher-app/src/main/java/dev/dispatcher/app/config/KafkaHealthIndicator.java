package dev.dispatcher.app.config;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.KafkaFuture;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/**
 * Reports Kafka {@code UP} when the cluster answers {@code describeCluster} within the timeout.
 *
 * <p>Each check is one admin request, issued at subscription, never at assembly. The admin client does its I/O on
 * its own thread; the calling thread only enqueues the request, so the check is safe on an event loop. The client
 * is created once and closed with the application context.
 */
final class KafkaHealthIndicator implements ReactiveHealthIndicator, AutoCloseable {

    private final Admin admin;
    private final Duration timeout;

    KafkaHealthIndicator(Map<String, Object> adminProperties, Duration timeout) {
        this.admin = Admin.create(adminProperties);
        this.timeout = timeout;
    }

    @Override
    public Mono<Health> health() {
        return Mono.defer(() -> {
            DescribeClusterResult cluster = admin.describeCluster(
                    new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()));
            return Mono.zip(fromKafka(cluster.clusterId()), fromKafka(cluster.nodes()));
        })
                .map(result -> Health.up()
                        .withDetail("clusterId", result.getT1())
                        .withDetail("brokers", result.getT2().size())
                        .build())
                // the admin request carries the same timeout; this one also bounds a client that never answers
                .timeout(timeout.plusSeconds(1))
                .onErrorResume(error -> Mono.just(Health.down(error).build()));
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
