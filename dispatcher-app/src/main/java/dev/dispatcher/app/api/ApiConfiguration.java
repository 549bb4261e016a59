package dev.dispatcher.app.api;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.store.ControlStore;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.store.OutboxStore;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the API's parser, stores and backlog guard. Start-up fails (naming the property) when
 * {@code dispatcher.ingest.max-payload-size} does not fit the Kafka producer's {@code max.request.size}.
 */
@Configuration(proxyBeanMethods = false)
class ApiConfiguration {

    @Bean
    IngestLimits ingestLimits(DispatcherProperties properties, KafkaProperties kafka) {
        IngestProperties ingest = properties.ingest();
        return IngestLimits.checked(ingest.maxPayloadSize().toBytes(), ingest.maxBatchSize(),
                kafka.buildProducerProperties());
    }

    @Bean
    IngestRequestParser ingestRequestParser(IngestLimits limits) {
        return new IngestRequestParser(limits.maxPayloadBytes(), limits.maxBatchSize());
    }

    @Bean
    IngestStore ingestStore(ConnectionFactory connectionFactory) {
        return new IngestStore(connectionFactory);
    }

    @Bean
    BacklogGuard backlogGuard(OutboxStore outboxStore, DispatcherProperties properties) {
        return new BacklogGuard(outboxStore::backlog, properties.ingest().maxBacklog());
    }

    @Bean
    OperatorStore operatorStore(ConnectionFactory connectionFactory, OutboxStore outboxStore) {
        return OperatorStore.r2dbc(connectionFactory, outboxStore);
    }
}
