package dev.dispatcher.app.kafka;

import java.util.Map;

/** Creates the {@link RecordPublisher} the service uses. */
public final class Publishers {

    private Publishers() {
    }

    /**
     * A publisher on kafka-clients. {@code acks=all}, idempotence and the serializers are forced; everything else
     * comes from {@code producerProperties} (Boot's {@code spring.kafka.producer.*}).
     */
    public static RecordPublisher kafka(Map<String, Object> producerProperties, Map<String, Object> adminProperties) {
        return new KafkaClientsPublisher(producerProperties, adminProperties);
    }
}
