package dev.dispatcher.app.outbox;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.RelayProperties;
import dev.dispatcher.app.config.RetentionProperties;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.observe.RateHistory;
import dev.dispatcher.app.observe.RunSummary;
import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
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
    OutboxStore outboxStore(ConnectionFactory connectionFactory, DispatcherProperties properties) {
        return OutboxStore.r2dbc(connectionFactory, ordering(properties.relay()));
    }

    @Bean
    ControlStore controlStore(ConnectionFactory connectionFactory) {
        return ControlStore.r2dbc(connectionFactory);
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

    /**
     * The relay's per-topic breakers ({@code topic:<name>}). Not exported as meters: one breaker's Resilience4j
     * series per topic the relay has ever published to is unbounded; {@code dispatcher.publish.failures{topic,
     * cause}} shows the topics that fail.
     */
    @Bean
    CircuitBreakerRegistry topicCircuitBreakers() {
        return CircuitBreakerRegistry.of(Relay.topicBreakerConfig());
    }

    @Bean
    PauseSwitch pauseSwitch(ControlStore controlStore, DispatcherProperties properties) {
        return new PauseSwitch(controlStore, properties.relay().pollInterval());
    }

    @Bean(destroyMethod = "close")
    Relay relay(OutboxStore store, RecordPublisher publisher, CircuitBreaker relayCircuitBreaker,
            CircuitBreakerRegistry topicCircuitBreakers, DispatcherMetrics metrics, PauseSwitch pauseSwitch,
            DispatcherProperties properties) {
        RelayProperties relay = properties.relay();
        RelaySettings settings = new RelaySettings(properties.workerId(), relay.batchSize(),
                relay.maxInFlightBatches(), relay.publishConcurrency(), relay.leaseDuration(), relay.pollInterval(),
                ordering(relay), properties.relayRetryPolicy(), DRAIN_TIMEOUT, relay.claimLinger(),
                relay.maxInFlightBytes().toBytes(), relay.missingTopicTimeout(), format(relay), relay.deadLetters());
        Relay r = new Relay(store, publisher, settings, relayCircuitBreaker, topicCircuitBreakers, metrics,
                pauseSwitch);
        pauseSwitch.onChange(r::pauseChanged);
        return r;
    }

    private static RecordFormat format(RelayProperties relay) {
        return switch (relay.format()) {
            case PLAIN -> RecordFormat.plain();
            case CLOUDEVENTS_BINARY -> RecordFormat.cloudEventsBinary(relay.cloudevents().sourceUri());
            case CLOUDEVENTS_STRUCTURED -> RecordFormat.cloudEventsStructured(relay.cloudevents().sourceUri());
        };
    }

    private static Ordering ordering(RelayProperties relay) {
        return switch (relay.ordering()) {
            case PER_KEY -> Ordering.PER_KEY;
            case NONE -> Ordering.NONE;
        };
    }

    @Bean
    OutboxListener outboxListener(ConnectionFactory connectionFactory, Relay relay, DispatcherProperties properties) {
        return new OutboxListener(connectionFactory, properties.schema(), relay::wake, Duration.ofSeconds(10));
    }

    @Bean
    AuditTrail auditTrail(ConnectionFactory connectionFactory) {
        return AuditTrail.r2dbc(connectionFactory);
    }

    @Bean
    Retention retention(OutboxStore store, AuditTrail auditTrail, DispatcherProperties properties) {
        RetentionProperties r = properties.retention();
        return Retention.outbox(store, auditTrail, r.delivered(), r.deadLettered(), r.audit());
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
            RunSummary summary) {
        return new RelayLifecycle(relay, listener, pauseSwitch, retention, RETENTION_EVERY, summary);
    }
}
