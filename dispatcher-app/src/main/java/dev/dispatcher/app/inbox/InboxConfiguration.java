package dev.dispatcher.app.inbox;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.InboxProperties;
import dev.dispatcher.app.kafka.Publishers;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.kafka.RecordReceiver;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.queue.Retention;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.app.store.InboxOperatorStore;
import dev.dispatcher.app.store.InboxReads;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.domain.Queue;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Wires the inbox from {@code dispatcher.inbox.consumers[i]}: a Kafka receiver, an intake and a handler loop per
 * consumer with that consumer's settings, the handler named by {@code handler} (a Spring bean implementing
 * {@link InboxHandler}, or the built-in {@code webhook}), retention after
 * {@code dispatcher.retention.inbox-completed} and {@code inbox-dead-lettered}, and depth gauges, each consumer in the
 * database of its {@code source}. Consumer settings come from Boot's
 * {@code spring.kafka.consumer.*}; group id, deserializers and manual commits are forced. Consumers with a
 * {@code dead-letter-topic} share one producer of their own, from {@code spring.kafka.producer.*}.
 */
@Configuration(proxyBeanMethods = false)
public class InboxConfiguration {

    /** How often inbox retention runs. */
    static final Duration RETENTION_EVERY = Duration.ofMinutes(1);
    /** How often the inbox depth gauges refresh. */
    static final Duration GAUGES_EVERY = Duration.ofSeconds(5);
    /** How long shutdown waits for a consumer's in-flight messages. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /** Each source's inbox reads, on the source's pool. */
    @Bean
    PerSource<InboxReads> inboxReads(Sources sources) {
        return PerSource.of(sources, source -> new InboxReads(source.connections()));
    }

    /** Each source's inbox operator store, on the source's pool. */
    @Bean
    PerSource<InboxOperatorStore> inboxOperatorStores(Sources sources, DispatcherProperties properties) {
        return PerSource.of(sources, source -> InboxOperatorStore.r2dbc(source.connections(),
                properties.operator().readTimeout()));
    }

    /**
     * The consumers, each on the inbox table of its {@code source} (its store, handler transactions and metrics
     * that source's), with retention and depth gauges per source, so a source that is down holds back only its own
     * consumers' work.
     */
    @Bean
    InboxLifecycle inboxLifecycle(Sources sources, PerSource<DispatcherMetrics> sourceMetrics,
            ObjectProvider<InboxHandler> handlerBeans, KafkaProperties kafka, DispatcherProperties properties,
            MessageTracing tracing, MeterRegistry meters) {
        Map<String, InboxHandler> handlers = handlersByName(handlerBeans.orderedStream().toList());
        Map<String, Object> consumerProperties = kafka.buildConsumerProperties();
        List<InboxProperties.Consumer> configured = properties.inbox().consumers();
        RecordPublisher deadLetters = deadLetterPublisher(configured, kafka, tracing, meters);
        PerSource<InboxStore> stores = PerSource.of(sources, source -> InboxStore.r2dbc(source.connections()));
        Map<String, List<InboxConsumer>> bySource = new LinkedHashMap<>();
        for (int i = 0; i < configured.size(); i++) {
            InboxProperties.Consumer c = configured.get(i);
            InboxHandler handler = TracingInboxHandler.traced(resolve(i, c, handlers), tracing);
            RecordReceiver receiver = RecordReceiver.reactorKafka(consumerProperties, c.topics(), c.groupId());
            bySource.computeIfAbsent(c.source(), name -> new ArrayList<>()).add(new InboxConsumer(receiver,
                    stores.get(c.source()), handler, settings(properties, i), sourceMetrics.get(c.source()),
                    deadLetters));
        }
        List<InboxLifecycle.SourceInbox> inboxes = new ArrayList<>();
        bySource.forEach((source, consumers) -> inboxes.add(new InboxLifecycle.SourceInbox(consumers,
                Retention.inbox(consumers.stream().map(InboxConsumer::rows).toList(),
                        properties.retention().inboxCompleted(), properties.retention().inboxDeadLettered()),
                sourceMetrics.get(source).queueGauges(Queue.INBOX))));
        return new InboxLifecycle(inboxes, RETENTION_EVERY, GAUGES_EVERY, deadLetters);
    }

    /**
     * The publisher of the consumers' dead-letter topics, or null when no consumer has one: a producer of its own
     * (through {@link Publishers}, as the relay's), so a dead-letter topic that is missing or slow never holds up
     * the relay's sends; closed with the inbox.
     */
    static @Nullable RecordPublisher deadLetterPublisher(List<InboxProperties.Consumer> consumers, KafkaProperties kafka,
            MessageTracing tracing, MeterRegistry meters) {
        if (consumers.stream().allMatch(c -> c.deadLetters() == null)) {
            return null;
        }
        return Publishers.traced(Publishers.kafka(Publishers.withDefaults(kafka.buildProducerProperties()),
                kafka.buildAdminProperties(), meters), tracing);
    }

    /** The settings of consumer {@code index}, as configured (defaults filled in by the properties). */
    static InboxSettings settings(DispatcherProperties properties, int index) {
        InboxProperties.Consumer c = properties.inbox().consumers().get(index);
        return new InboxSettings(c.name(), properties.workerId(), c.batchSize(), c.concurrency(),
                c.maxInFlightBatches(), c.leaseDuration(), c.pollInterval(), c.claimLinger(),
                properties.consumerRetryPolicy(index), c.maxBacklog(), c.handlerTimeout(), DRAIN_TIMEOUT,
                c.maxPayloadSize().toBytes(), c.ordering().store(), c.deadLetters());
    }

    /** Handler beans by name; names are unique and {@code webhook} is reserved for the built-in handler. */
    static Map<String, InboxHandler> handlersByName(List<InboxHandler> beans) {
        Map<String, InboxHandler> byName = new TreeMap<>();
        for (InboxHandler h : beans) {
            if (InboxProperties.Consumer.WEBHOOK_HANDLER.equals(h.name())) {
                throw new IllegalStateException("inbox handler name 'webhook' is reserved for the built-in webhook"
                        + " handler, but " + h.getClass().getName() + " uses it");
            }
            InboxHandler earlier = byName.putIfAbsent(h.name(), h);
            if (earlier != null) {
                throw new IllegalStateException("inbox handler names must be unique, but '" + h.name()
                        + "' is used by " + earlier.getClass().getName() + " and " + h.getClass().getName());
            }
        }
        return byName;
    }

    /** The handler consumer {@code index} names; fails naming the property and the known names. */
    static InboxHandler resolve(int index, InboxProperties.Consumer consumer, Map<String, InboxHandler> handlers) {
        if (InboxProperties.Consumer.WEBHOOK_HANDLER.equals(consumer.handler())) {
            return WebhookHandler.create(consumer.webhook().url(), consumer.webhook().timeout(),
                    consumer.concurrency());
        }
        InboxHandler handler = handlers.get(consumer.handler());
        if (handler == null) {
            throw new IllegalArgumentException(DispatcherProperties.PREFIX + ".inbox.consumers[" + index
                    + "].handler must name an InboxHandler bean or 'webhook' (known: " + handlers.keySet()
                    + "), but was '" + consumer.handler() + "'");
        }
        return handler;
    }
}
