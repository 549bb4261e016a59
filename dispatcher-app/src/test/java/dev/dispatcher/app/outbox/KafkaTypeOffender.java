package dev.dispatcher.app.outbox;

import dev.dispatcher.app.inbox.SqlBindingOffender;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Test fixture for ServicePackagesTest: an outbox class holding a Kafka type, and using the inbox fixture. */
public final class KafkaTypeOffender {

    ProducerRecord<String, String> record() {
        return new ProducerRecord<>("topic", "value");
    }

    Object other() {
        return new SqlBindingOffender();
    }
}
