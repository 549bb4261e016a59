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
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires a relay for each source (its listener, pause switch, retention and summary) and the Kafka publisher they
 * share, from configuration.
 */
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

    @Bean(destroyMethod = "close")
    RecordPublisher recordPublisher(KafkaProperties kafka, MessageTracing tracing, MeterRegistry meters) {
        return Publishers.traced(Publishers.kafka(Publishers.withDefaults(kafka.buildProducerProperties()),
                kafka.buildAdminProperties(), meters), tracing);
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

    /**
     * One relay per source ({@link SourceRelay}), each on the source's own pool with its own claim loop, pause
     * switch, listener and metrics; the Kafka producer and the breakers are shared, as the broker is. Fairness:
     * each source's loop holds an even share of {@code dispatcher.relay.max-in-flight-batches} and {@code
     * max-in-flight-bytes} (at least one batch), so under a backlog on every source each gets its share of the
     * relay's in-flight batches and none starves.
     */
    @Bean
    PerSource<SourceRelay> sourceRelays(Sources sources, RecordPublisher publisher,
            CircuitBreaker relayCircuitBreaker, CircuitBreakerRegistry topicCircuitBreakers, MeterRegistry registry,
            DispatcherProperties properties) {
        RelayProperties relay = properties.relay();
        RelaySettings settings = new RelaySettings(properties.workerId(), relay.batchSize(),
                share(relay.maxInFlightBatches(), sources.size()), relay.publishConcurrency(), relay.leaseDuration(),
                relay.pollInterval(), ordering(relay), properties.relayRetryPolicy(), DRAIN_TIMEOUT,
                relay.claimLinger(), share(relay.maxInFlightBytes().toBytes(), sources.size()),
                relay.missingTopicTimeout(), format(relay), relay.deadLetters());
        RetentionProperties r = properties.retention();
        return PerSource.of(sources, source -> {
            DispatcherMetrics metrics = new DispatcherMetrics(registry, source.name());
            OutboxStore store = OutboxStore.r2dbc(source.connections(), ordering(relay));
            ControlStore control = ControlStore.r2dbc(source.connections());
            AuditTrail audit = AuditTrail.r2dbc(source.connections());
            PauseSwitch pauseSwitch = new PauseSwitch(control, relay.pollInterval());
            Relay sourceRelay = new Relay(store, publisher, settings, relayCircuitBreaker, topicCircuitBreakers,
                    metrics, pauseSwitch);
            OutboxListener listener = new OutboxListener(source.wakeUps(), source.schema(), sourceRelay::wake,
                    Duration.ofSeconds(10));
            RateHistory history = new RateHistory(SUMMARY_EVERY, RATE_HISTORY_SPAN);
            return new SourceRelay(source, store, control, audit, pauseSwitch, sourceRelay, listener,
                    Retention.outbox(store, audit, r.delivered(), r.deadLettered(), r.audit()), RETENTION_EVERY,
                    new RunSummary(store::backlog, metrics, SUMMARY_EVERY, true, history), history, metrics);
        });
    }

    /** An even share of {@code total} for each of {@code sources}, at least 1. */
    static int share(int total, int sources) {
        return Math.max(1, total / sources);
    }

    static long share(long total, int sources) {
        return Math.max(1, total / sources);
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
            case PER_KEY_ACROSS_TOPICS -> Ordering.PER_KEY_ACROSS_TOPICS;
            case NONE -> Ordering.NONE;
        };
    }

    @Bean(destroyMethod = "close")
    RelayLifecycle relayLifecycle(PerSource<SourceRelay> relays) {
        return new RelayLifecycle(relays);
    }

    /** Each source's metrics (tagged with it), shared by its relay and the inbox consumers in its database. */
    @Bean
    PerSource<DispatcherMetrics> sourceMetrics(PerSource<SourceRelay> relays) {
        return relays.map(SourceRelay::metrics);
    }
}
