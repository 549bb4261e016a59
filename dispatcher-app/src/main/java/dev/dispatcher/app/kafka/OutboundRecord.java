package dev.dispatcher.app.kafka;

import java.util.Map;
import java.util.Objects;

/**
 * One record to publish.
 *
 * @param topic destination topic
 * @param key Kafka key (also the ordering key), may be null
 * @param value record value
 * @param headers headers in send order, values UTF-8 encoded on the wire
 */
public record OutboundRecord(String topic, String key, byte[] value, Map<String, String> headers) {

    public OutboundRecord {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(value, "value");
        headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
    }
}
