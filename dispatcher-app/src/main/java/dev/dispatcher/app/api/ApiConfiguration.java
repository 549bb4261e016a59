package dev.dispatcher.app.api;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.store.IngestStore;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.store.OutboxStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wires the API's parser, stores, backlog guard, ingest budget and single-message fast path, and bounds how long
 * the server waits for a request's body. Start-up fails (naming the property) when {@code
 * dispatcher.ingest.max-payload-size} does not fit the Kafka producer's {@code max.request.size}, or the largest
 * body it allows does not fit {@code dispatcher.ingest.max-queued-bytes}.
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
    IngestBudget ingestBudget(IngestLimits limits, DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        return limits.budget(ingest.maxQueuedBytes().toBytes(), ingest.maxConcurrentRequests());
    }

    /**
     * {@code dispatcher.ingest.read-timeout} and {@code body-timeout} as reactor-netty's read and request timeouts
     * (Boot has no property for either; its {@code server.netty.idle-timeout}, set in {@code application.yml},
     * bounds the wait for a request on a kept-alive connection): a client that stops sending a body, or sends it
     * too slowly, has its connection closed, and what it sent is released, instead of holding memory for ever.
     */
    @Bean
    NettyServerCustomizer requestBodyTimeouts(DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        return server -> server.readTimeout(ingest.readTimeout()).requestTimeout(ingest.bodyTimeout());
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

    /**
     * {@code dispatcher.ingest.fast-path}. The server timer's name is Boot's
     * ({@code management.observations.http.server.requests.name}); whether it is recorded at all is the observation
     * registry's answer for that name ({@code management.observations.enable.*} and any other predicate).
     */
    @Bean
    IngestFastPath ingestFastPath(DispatcherProperties properties, ObjectProvider<ReactiveJwtDecoder> jwtDecoder,
            SingleIngest single, MessageTracing tracing, JsonMapper json, MeterRegistry meters,
            ObservationRegistry observations, Environment environment) {
        String name = environment.getProperty("management.observations.http.server.requests.name",
                "http.server.requests");
        boolean observed = !Observation.createNotStarted(name, observations).isNoop();
        // its own token checker: as a bean, a ReactiveAuthenticationManager would become Spring Security's default
        ApiTokenAuthenticationManager tokens = new ApiTokenAuthenticationManager(properties.security().tokens());
        return new IngestFastPath(properties.ingest().fastPath(), tokens, jwtDecoder.getIfAvailable() != null,
                single, tracing, json, meters, observed ? name : null);
    }

    @Bean
    SingleIngest singleIngest(IngestRequestParser parser, IngestWriter ingest, BacklogGuard backlog,
            IngestLimits limits, IngestBudget budget) {
        return new SingleIngest(parser, ingest, backlog, limits, budget);
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
