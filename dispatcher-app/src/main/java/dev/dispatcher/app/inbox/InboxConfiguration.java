package dev.dispatcher.app.inbox;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.outbox.Retention;
import dev.dispatcher.domain.Queue;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Wires the inbox from {@code dispatcher.inbox.consumers[i]}: a reactor-kafka receiver, an intake and a processor
 * per consumer, the handler named by {@code handler} (a Spring bean implementing {@link InboxHandler}, or the
 * built-in {@code webhook}), retention after {@code dispatcher.retention.inbox-completed}, and depth gauges.
 * Consumer settings come from Boot's {@code spring.kafka.consumer.*}; group id, deserializers and manual commits
 * are forced.
 */
@Configuration(proxyBeanMethods = false)
public class InboxConfiguration {

    /** How often inbox retention runs. */
    static final Duration RETENTION_EVERY = Duration.ofMinutes(1);
    /** How often the inbox depth gauges refresh. */
    static final Duration GAUGES_EVERY = Duration.ofSeconds(5);

    @Bean
    InboxStore inboxStore(ConnectionFactory connectionFactory) {
        return InboxStore.r2dbc(connectionFactory);
    }

    @Bean
    InboxReads inboxReads(ConnectionFactory connectionFactory) {
        return new InboxReads(connectionFactory);
    }

    @Bean
    InboxLifecycle inboxLifecycle(InboxStore store, ConnectionFactory connectionFactory,
            ObjectProvider<InboxHandler> handlerBeans, DispatcherMetrics metrics, KafkaProperties kafka,
            DispatcherProperties properties, MessageTracing tracing) {
        Map<String, InboxHandler> handlers = handlersByName(handlerBeans.orderedStream().toList());
        Map<String, Object> consumerProperties = kafka.buildConsumerProperties();
        List<InboxConsumer> consumers = new ArrayList<>();
        List<DispatcherProperties.Consumer> configured = properties.inbox().consumers();
        for (int i = 0; i < configured.size(); i++) {
            DispatcherProperties.Consumer c = configured.get(i);
            InboxHandler handler = TracingInboxHandler.traced(resolve(i, c, handlers), tracing);
            InboxSettings settings = InboxSettings.of(c.name(), properties.workerId(),
                    properties.relay().pollInterval(), properties.retry().toPolicy(RandomGenerator.getDefault()));
            InboxReceiver receiver = new ReactorKafkaInboxReceiver(consumerProperties, c.topics(), c.groupId());
            consumers.add(new InboxConsumer(receiver, store, handler, settings, metrics, connectionFactory));
        }
        Duration window = properties.retention().inboxCompleted();
        Retention retention = new Retention("completed inbox",
                List.of(() -> store.purgeCompleted(window, Retention.BATCH)));
        return new InboxLifecycle(consumers, retention, RETENTION_EVERY, store, metrics.queueGauges(Queue.INBOX),
                GAUGES_EVERY);
    }

    /** Handler beans by name; names are unique and {@code webhook} is reserved for the built-in handler. */
    static Map<String, InboxHandler> handlersByName(List<InboxHandler> beans) {
        Map<String, InboxHandler> byName = new TreeMap<>();
        for (InboxHandler h : beans) {
            if (DispatcherProperties.Consumer.WEBHOOK_HANDLER.equals(h.name())) {
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
    static InboxHandler resolve(int index, DispatcherProperties.Consumer consumer, Map<String, InboxHandler> handlers) {
        if (DispatcherProperties.Consumer.WEBHOOK_HANDLER.equals(consumer.handler())) {
            return new WebhookHandler(WebClient.builder().build(), consumer.webhook().url(),
                    consumer.webhook().timeout());
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
