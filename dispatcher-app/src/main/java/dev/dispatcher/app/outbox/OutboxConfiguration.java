package dev.dispatcher.app.outbox;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.observe.RateHistory;
import dev.dispatcher.app.observe.RunSummary;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the relay, its listener, pause switch, retention and the Kafka publisher from configuration. */
@Configuration(proxyBeanMethods = false)
public class OutboxConfiguration {

    /** How long shutdown waits for in-flight batches to publish and write their transitions. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
    /** How often retention runs. */
    static final Duration RETENTION_EVERY = Duration.ofMinutes(1);
    /** How often the backlog gauges refresh and the summary line is logged. */
    static final Duration SUMMARY_EVERY = Duration.ofSeconds(5);
    /** How far back the console's overview chart reaches. */
    static final Duration RATE_HISTORY_SPAN = Duration.ofMinutes(10);

    @Bean
    OutboxStore outboxStore(ConnectionFactory connectionFactory) {
        return OutboxStore.r2dbc(connectionFactory);
    }

    @Bean(destroyMethod = "close")
    RecordPublisher recordPublisher(KafkaProperties kafka, MessageTracing tracing) {
        return Publishers.traced(Publishers.kafka(Publishers.withDefaults(kafka.buildProducerProperties()),
                kafka.buildAdminProperties()), tracing);
    }

    @Bean
    DispatcherMetrics dispatcherMetrics(MeterRegistry registry) {
        return new DispatcherMetrics(registry);
    }

    @Bean
    CircuitBreaker relayCircuitBreaker(MeterRegistry registry) {
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.of(RelayBreaker.config());
        CircuitBreaker breaker = breakers.circuitBreaker("kafka");
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(registry);
        return breaker;
    }

    @Bean
    PauseSwitch pauseSwitch(ConnectionFactory connectionFactory, DispatcherProperties properties) {
        return new PauseSwitch(connectionFactory, properties.relay().pollInterval());
    }

    @Bean
    Relay relay(OutboxStore store, RecordPublisher publisher, CircuitBreaker relayCircuitBreaker,
            DispatcherMetrics metrics, PauseSwitch pauseSwitch, DispatcherProperties properties) {
        DispatcherProperties.Relay relay = properties.relay();
        RelaySettings settings = new RelaySettings(properties.workerId(), relay.batchSize(),
                relay.maxInFlightBatches(), relay.publishConcurrency(), relay.leaseDuration(), relay.pollInterval(),
                Ordering.valueOf(relay.ordering().name()), properties.retry().toPolicy(RandomGenerator.getDefault()),
                DRAIN_TIMEOUT, relay.claimLinger());
        return new Relay(store, publisher, settings, relayCircuitBreaker, metrics, pauseSwitch);
    }

    @Bean
    OutboxListener outboxListener(ConnectionFactory connectionFactory, Relay relay, DispatcherProperties properties) {
        return new OutboxListener(connectionFactory, properties.schema(), relay::wake, Duration.ofSeconds(10));
    }

    @Bean
    Retention retention(OutboxStore store, ConnectionFactory connectionFactory, DispatcherProperties properties) {
        DispatcherProperties.Retention r = properties.retention();
        return Retention.outbox(store, connectionFactory, r.delivered(), r.deadLettered(), r.audit());
    }

    @Bean
    RunSummary runSummary(OutboxStore store, DispatcherMetrics metrics, RateHistory rateHistory) {
        return new RunSummary(store::backlog, metrics, SUMMARY_EVERY, true, rateHistory);
    }

    @Bean
    RateHistory rateHistory() {
        return new RateHistory(SUMMARY_EVERY, RATE_HISTORY_SPAN);
    }

    @Bean
    RelayLifecycle relayLifecycle(Relay relay, OutboxListener listener, PauseSwitch pauseSwitch, Retention retention,
            RunSummary summary, ConnectionFactory connectionFactory, DispatcherProperties properties) {
        DemoProducer demo = properties.demo().enabled()
                ? new DemoProducer(connectionFactory, properties.demo().rate()) : null;
        return new RelayLifecycle(relay, listener, pauseSwitch, retention, RETENTION_EVERY, summary, demo);
    }
}
