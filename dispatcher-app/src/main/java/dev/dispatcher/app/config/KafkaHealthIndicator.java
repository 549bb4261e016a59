package dev.dispatcher.app.config;

import dev.dispatcher.app.kafka.ClusterCheck;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/**
 * Reports Kafka {@code UP} when the cluster answers {@code describeCluster} within the timeout, through the kafka
 * package's {@link ClusterCheck} (no Kafka client type here). Non-blocking; the check's client is closed with the
 * application context.
 */
final class KafkaHealthIndicator implements ReactiveHealthIndicator, AutoCloseable {

    private final ClusterCheck cluster;
    private final Duration timeout;

    KafkaHealthIndicator(Map<String, Object> adminProperties, Duration timeout) {
        this.cluster = new ClusterCheck(adminProperties);
        this.timeout = timeout;
    }

    @Override
    public Mono<Health> health() {
        return cluster.describe(timeout)
                .map(info -> Health.up()
                        .withDetail("clusterId", info.clusterId())
                        .withDetail("brokers", info.brokers())
                        .build())
                .onErrorResume(error -> Mono.just(Health.down(error).build()));
    }

    @Override
    public void close() {
        cluster.close();
    }
}
