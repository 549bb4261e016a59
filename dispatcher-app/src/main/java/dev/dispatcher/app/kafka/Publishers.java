package dev.dispatcher.app.kafka;

import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.observe.TopicTable;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Creates the {@link RecordPublisher} the service uses. */
public final class Publishers {

    private Publishers() {
    }

    /**
     * {@code configured} plus the producer settings Dispatcher relies on unless the operator set them (under
     * {@code spring.kafka.producer.*}): a short linger and large batches for throughput, and delivery, request and
     * block timeouts short enough that an outage releases leased rows well within a lease renewal cycle.
     */
    public static Map<String, Object> withDefaults(Map<String, Object> configured) {
        Map<String, Object> props = new HashMap<>(configured);
        props.putIfAbsent("linger.ms", 5);
        props.putIfAbsent("batch.size", 131072);
        props.putIfAbsent("delivery.timeout.ms", 30000);
        props.putIfAbsent("request.timeout.ms", 10000);
        props.putIfAbsent("max.block.ms", 10000);
        props.putIfAbsent("max.in.flight.requests.per.connection", 5);
        return props;
    }

    /**
     * A publisher on kafka-clients. {@code acks=all}, idempotence and the serializers are forced; everything else
     * comes from {@code producerProperties} (Boot's {@code spring.kafka.producer.*}). The first time it publishes to
     * a topic it checks, off the send path, that the topic's {@code min.insync.replicas} makes {@code acks=all}
     * worth its name, and logs a warning naming the topic when not ({@link TopicDurabilityWarnings}).
     */
    public static RecordPublisher kafka(Map<String, Object> producerProperties, Map<String, Object> adminProperties) {
        return kafka(producerProperties, adminProperties, null);
    }

    /**
     * {@link #kafka(Map, Map)} whose per-topic tables count the topics they drop when full in {@code meters}
     * ({@code dispatcher.topics.evicted}, {@code table} {@code topic_readiness} and {@code topic_creations}); none
     * counted when null.
     */
    public static RecordPublisher kafka(Map<String, Object> producerProperties, Map<String, Object> adminProperties,
            @Nullable MeterRegistry meters) {
        Map<String, Object> admin = new HashMap<>(adminProperties);
        // an admin client without servers of its own uses the producer's, as KafkaClientsPublisher's does
        Object servers = producerProperties.get("bootstrap.servers");
        if (servers != null) {
            admin.putIfAbsent("bootstrap.servers", servers);
        }
        return TopicDurabilityWarnings.logging(new KafkaClientsPublisher(producerProperties, admin,
                        table -> meters == null ? TopicTable.Evictions.NONE : TopicTable.evictionsIn(meters, table)),
                new ClusterCheck(admin));
    }

    /**
     * {@code publisher} with a publish span per record whose {@code traceparent} the record carries
     * ({@link TracingRecordPublisher}); {@code publisher} itself when tracing is off.
     */
    public static RecordPublisher traced(RecordPublisher publisher, MessageTracing tracing) {
        return tracing.enabled() ? new TracingRecordPublisher(publisher, tracing) : publisher;
    }
}
