package dev.dispatcher.app.config;

import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.r2dbc.health.ConnectionFactoryHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * The {@code db} and {@code kafka} components of {@code /actuator/health}; both are in the readiness group.
 *
 * <p>Both checks are non-blocking and bounded by {@link #CHECK_TIMEOUT}: a database or broker that does not
 * answer reports {@code DOWN} instead of holding the health request. Boot's own R2DBC indicator (named
 * {@code r2dbc}) is switched off in {@code application.yml} in favour of {@code db}.
 */
@Configuration(proxyBeanMethods = false)
final class HealthConfiguration {

    /** The longest a single health check may take before it reports {@code DOWN}. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);

    /** {@code db}: {@code SELECT 1} on a pooled R2DBC connection. */
    @Bean
    ReactiveHealthIndicator dbHealthIndicator(ConnectionFactory connectionFactory) {
        ReactiveHealthIndicator query = new ConnectionFactoryHealthIndicator(connectionFactory, "SELECT 1");
        return () -> query.health().timeout(CHECK_TIMEOUT, Mono.fromSupplier(() -> Health.down()
                .withDetail("error", "no answer within " + CHECK_TIMEOUT.toMillis() + " ms")
                .build()));
    }

    /** {@code kafka}: the cluster id and broker count from one admin client, closed at shutdown. */
    @Bean
    KafkaHealthIndicator kafkaHealthIndicator(
            KafkaProperties kafka, ObjectProvider<KafkaConnectionDetails> connectionDetails,
            DispatcherProperties dispatcher) {
        Map<String, Object> admin = kafka.buildAdminProperties();
        connectionDetails.ifAvailable(details -> admin.put(
                "bootstrap.servers", details.getAdmin().getBootstrapServers()));
        admin.put("client.id", "dispatcher-health-" + dispatcher.workerId());
        return new KafkaHealthIndicator(admin, CHECK_TIMEOUT);
    }
}
