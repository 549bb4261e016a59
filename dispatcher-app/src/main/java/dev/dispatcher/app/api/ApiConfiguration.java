package dev.dispatcher.app.api;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.store.IngestStore;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.store.OutboxStore;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
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
    IngestRequestParser ingestRequestParser(IngestLimits limits, DispatcherProperties properties) {
        return new IngestRequestParser(limits.maxPayloadBytes(), limits.maxBatchSize(),
                properties.ingest().maxDelay(), Clock.systemUTC());
    }

    @Bean
    IngestWriter ingestWriter(ConnectionFactory connectionFactory, DispatcherProperties properties) {
        return new IngestWriter(IngestStore.r2dbc(connectionFactory), properties.ingest().writers(),
                properties.ingest().timeout());
    }

    @Bean(initMethod = "start", destroyMethod = "stop")
    BacklogGuard backlogGuard(OutboxStore outboxStore, DispatcherProperties properties) {
        return new BacklogGuard(outboxStore::backlogUpperBound, outboxStore::backlog,
                properties.ingest().maxBacklog());
    }

    @Bean
    OperatorStore operatorStore(ConnectionFactory connectionFactory, OutboxStore outboxStore) {
        return OperatorStore.r2dbc(connectionFactory, outboxStore);
    }
}
