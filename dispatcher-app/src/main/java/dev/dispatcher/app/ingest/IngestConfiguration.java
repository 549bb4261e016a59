package dev.dispatcher.app.ingest;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.store.IngestStore;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.app.source.PerSource;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.app.store.Ordering;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
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
        return limits.budget(ingest.maxQueuedBytes().toBytes(), ingest.maxConcurrentRequests(),
                ingest.maxConcurrentRequestsPerClient());
    }

    /**
     * An {@link Ingest} per source, each writing through lanes of its own on the source's pool and refusing on its
     * own backlog; the limits and the memory budget are the instance's.
     */
    @Bean(initMethod = "start", destroyMethod = "stop")
    SourceIngests sourceIngests(Sources sources, IngestLimits limits, IngestBudget budget,
            DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        IngestRequestParser parser = new IngestRequestParser(limits.maxPayloadBytes(), limits.maxBatchSize(),
                ingest.maxDelay(), Clock.systemUTC());
        List<BacklogGuard> guards = new ArrayList<>();
        PerSource<Ingest> ingests = PerSource.of(sources, source -> {
            // the backlog only: the claim ordering of this store is never used
            OutboxStore outbox = OutboxStore.r2dbc(source.connections(), Ordering.NONE);
            BacklogGuard backlog = new BacklogGuard(outbox::backlogUpperBound, outbox::backlog, ingest.maxBacklog());
            guards.add(backlog);
            IngestWriter writer = new IngestWriter(IngestStore.r2dbc(source.connections()), ingest.writers(),
                    ingest.timeout());
            return new Ingest(parser, writer, backlog, limits, budget, ingest.bodyTimeout());
        });
        return new SourceIngests(ingests, guards);
    }

    /** The default source's ingest ({@code /v1/messages} and its fast path). */
    @Bean
    Ingest ingest(SourceIngests ingests) {
        return ingests.defaultSource();
    }
}
