package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientsPublisherTest {

    @Test
    void aSecondProducerIsMadeOnlyWhenTheConfiguredOneLingers() {
        assertThat(KafkaClientsPublisher.lingers(Map.of())).as("Kafka's default, 5 ms").isTrue();
        assertThat(KafkaClientsPublisher.lingers(Map.of("linger.ms", 5))).isTrue();
        assertThat(KafkaClientsPublisher.lingers(Map.of("linger.ms", "20"))).isTrue();
        assertThat(KafkaClientsPublisher.lingers(Map.of("linger.ms", 0))).isFalse();
        assertThat(KafkaClientsPublisher.lingers(Map.of("linger.ms", " 0 "))).isFalse();
    }
}
