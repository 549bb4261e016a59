package dev.dispatcher.app.ingest;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.store.IngestStore;
import dev.dispatcher.app.store.OutboxStore;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires {@link Ingest}: its limits, parser, budget, backlog guard and lanes from {@code dispatcher.ingest.*}.
 * Start-up fails (naming the property) when {@code dispatcher.ingest.max-payload-size} does not fit the Kafka
 * producer's {@code max.request.size}, or the largest body it allows does not fit
 * {@code dispatcher.ingest.max-queued-bytes}.
 */
@Configuration(proxyBeanMethods = false)
class IngestConfiguration {

    @Bean
    IngestLimits ingestLimits(DispatcherProperties properties, KafkaProperties kafka) {
        IngestProperties ingest = properties.ingest();
        return IngestLimits.checked(ingest.maxPayloadSize().toBytes(), ingest.maxBatchSize(),
                kafka.buildProducerProperties());
    }

    @Bean
    IngestBudget ingestBudget(IngestLimits limits, DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        return limits.budget(ingest.maxQueuedBytes().toBytes(), ingest.maxConcurrentRequests());
    }

    @Bean(initMethod = "start", destroyMethod = "stop")
    BacklogGuard backlogGuard(OutboxStore outboxStore, DispatcherProperties properties) {
        return new BacklogGuard(outboxStore::backlogUpperBound, outboxStore::backlog,
                properties.ingest().maxBacklog());
    }

    @Bean
    Ingest ingest(IngestLimits limits, IngestBudget budget, BacklogGuard backlog,
            ConnectionFactory connectionFactory, DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        IngestRequestParser parser = new IngestRequestParser(limits.maxPayloadBytes(), limits.maxBatchSize(),
                ingest.maxDelay(), Clock.systemUTC());
        IngestWriter writer = new IngestWriter(IngestStore.r2dbc(connectionFactory), ingest.writers(),
                ingest.timeout());
        return new Ingest(parser, writer, backlog, limits, budget);
    }
}
