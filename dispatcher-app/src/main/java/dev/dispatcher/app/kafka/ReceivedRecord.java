package dev.dispatcher.app.kafka;

import java.util.List;
import java.util.Objects;

/**
 * A Kafka record as the receiver adapter hands it over, free of client types and undecoded: the key and the header
 * values are the bytes the producer sent, so the inbox decides what is text (an Avro key in Confluent's wire
 * format, or a header that is not UTF-8, is not).
 *
 * @param topic source topic
 * @param partition source partition
 * @param offset source offset
 * @param key record key as received, may be null
 * @param headers the headers in record order, repeated names included
 * @param payload record value, empty for a null value
 */
public record ReceivedRecord(String topic, int partition, long offset, byte[] key, List<Header> headers,
        byte[] payload) {

    public ReceivedRecord {
        Objects.requireNonNull(topic, "topic");
        headers = List.copyOf(headers);
        payload = payload == null ? new byte[0] : payload;
    }

    /**
     * One header. kafka-clients decodes header names itself (as UTF-8, replacing what is not), so only the value is
     * raw.
     *
     * @param name the header name
     * @param value the value as received, may be null
     */
    public record Header(String name, byte[] value) {

        public Header {
            Objects.requireNonNull(name, "name");
        }
    }
}
