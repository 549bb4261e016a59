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
 * The {@code db} and {@code kafka} components of {@code /actuator/health}. Readiness ({@code application.yml}) is
 * {@code db} alone: ingest needs only PostgreSQL, and while Kafka is down the relay keeps rows in the outbox, so a
 * broker outage must not take every instance out of its load balancer; {@code kafka} stays visible in
 * {@code /actuator/health}.
 *
 * <p>Both checks are non-blocking and bounded by {@link #CHECK_TIMEOUT}: a database or broker that does not
 * answer reports {@code DOWN} instead of holding the health request. Each runs at most once per
 * {@link #CACHE_FOR} ({@link CachedHealthIndicator}), however many health calls arrive: the endpoint is public, and
 * each uncached {@code db} check took a connection from the pool that ingest and the relay share. Boot's own R2DBC
 * indicator (named {@code r2dbc}) is switched off in {@code application.yml} in favour of {@code db}.
 */
@Configuration(proxyBeanMethods = false)
final class HealthConfiguration {

    /** The longest a single health check may take before it reports {@code DOWN}. */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);
    /** How long a component's result answers health calls before the next call checks again. */
    static final Duration CACHE_FOR = Duration.ofSeconds(1);

    /** {@code db}: {@code SELECT 1} on a pooled R2DBC connection, at most once per {@link #CACHE_FOR}. */
    @Bean
    CachedHealthIndicator dbHealthIndicator(ConnectionFactory connectionFactory) {
        ReactiveHealthIndicator query = new ConnectionFactoryHealthIndicator(connectionFactory, "SELECT 1");
        return new CachedHealthIndicator(() -> query.health().timeout(CHECK_TIMEOUT, Mono.fromSupplier(() ->
                Health.down().withDetail("error", "no answer within " + CHECK_TIMEOUT.toMillis() + " ms").build())),
                CACHE_FOR);
    }

    /**
     * {@code kafka}: the cluster id and broker count from one admin client, closed with the context, at most once
     * per {@link #CACHE_FOR}.
     */
    @Bean
    CachedHealthIndicator kafkaHealthIndicator(
            KafkaProperties kafka, ObjectProvider<KafkaConnectionDetails> connectionDetails,
            DispatcherProperties dispatcher) {
        Map<String, Object> admin = kafka.buildAdminProperties();
        connectionDetails.ifAvailable(details -> admin.put(
                "bootstrap.servers", details.getAdmin().getBootstrapServers()));
        admin.put("client.id", "dispatcher-health-" + dispatcher.workerId());
        return new CachedHealthIndicator(new KafkaHealthIndicator(admin, CHECK_TIMEOUT), CACHE_FOR);
    }
}
