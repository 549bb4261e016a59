package dev.dispatcher.app.api;

import dev.dispatcher.app.config.DispatcherProperties;
import dev.dispatcher.app.config.IngestProperties;
import dev.dispatcher.app.ingest.Ingest;
import dev.dispatcher.app.observe.MessageTracing;
import dev.dispatcher.app.store.OperatorStore;
import dev.dispatcher.app.outbox.SourceRelay;
import dev.dispatcher.app.source.PerSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.netty.channel.ServerChannel;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wires the API's ingest responder, the single-message fast path and the operator store, bounds how long the
 * server waits for a request's body, and caps its open connections.
 */
@Configuration(proxyBeanMethods = false)
class ApiConfiguration {

    /** How much longer than {@code dispatcher.ingest.body-timeout} Netty waits before it closes a request's connection. */
    static final Duration REQUEST_TIMEOUT_GRACE = Duration.ofSeconds(5);

    /**
     * {@code dispatcher.ingest.read-timeout} as reactor-netty's read timeout and {@code body-timeout} plus {@link
     * #REQUEST_TIMEOUT_GRACE} as its request timeout (Boot has no property for either; its {@code
     * server.netty.idle-timeout}, set in {@code application.yml}, bounds the wait for a request on a kept-alive
     * connection): a client that stops sending a body, or sends it too slowly, has its connection closed, and what it
     * sent is released, instead of holding memory for ever. An ingest body is answered {@code 408} at {@code
     * body-timeout} itself ({@code Ingest}); the grace lets that answer go out before Netty closes the connection.
     * A request head must arrive within {@link RequestHeadDeadline#TIMEOUT}.
     */
    @Bean
    NettyServerCustomizer requestBodyTimeouts(DispatcherProperties properties) {
        IngestProperties ingest = properties.ingest();
        return server -> server.readTimeout(ingest.readTimeout())
                .requestTimeout(ingest.bodyTimeout().plus(REQUEST_TIMEOUT_GRACE))
                .doOnChannelInit((observer, channel, remote) ->
                        RequestHeadDeadline.install(channel.pipeline(), RequestHeadDeadline.TIMEOUT));
    }

    /** {@code dispatcher.server.max-connections}. */
    @Bean
    ConnectionCap connectionCap(DispatcherProperties properties, MeterRegistry meters) {
        return new ConnectionCap(properties.server().maxConnections(), meters, System::nanoTime);
    }

    /**
     * Puts each connection the server accepts through the {@link ConnectionCap}; HTTP/2 streams, whose parent is a
     * connection and not the server's socket, are not connections and are not counted.
     */
    @Bean
    NettyServerCustomizer connectionLimit(ConnectionCap cap) {
        return server -> server.doOnChannelInit((observer, channel, remote) -> {
            if (channel.parent() instanceof ServerChannel) {
                cap.admit(channel);
            }
        });
    }

    @Bean
    IngestResponder ingestResponder(JsonMapper json) {
        return new IngestResponder(json);
    }

    /**
     * {@code dispatcher.ingest.fast-path}. The server timer's name is Boot's
     * ({@code management.observations.http.server.requests.name}); whether it is recorded at all is the observation
     * registry's answer for that name ({@code management.observations.enable.*} and any other predicate).
     */
    @Bean
    IngestFastPath ingestFastPath(DispatcherProperties properties, ObjectProvider<ReactiveJwtDecoder> jwtDecoder,
            Ingest ingest, IngestResponder responder, MessageTracing tracing, MeterRegistry meters,
            ObservationRegistry observations, Environment environment) {
        String name = environment.getProperty("management.observations.http.server.requests.name",
                "http.server.requests");
        boolean observed = !Observation.createNotStarted(name, observations).isNoop();
        // its own token checker: as a bean, a ReactiveAuthenticationManager would become Spring Security's default
        ApiTokenAuthenticationManager tokens = new ApiTokenAuthenticationManager(properties.security().tokens());
        return new IngestFastPath(properties.ingest().fastPath(), tokens, jwtDecoder.getIfAvailable() != null,
                ingest, responder, tracing, meters, observed ? name : null);
    }

    /** Each source's operator store, on the source's pool. */
    @Bean
    PerSource<OperatorStore> operatorStores(PerSource<SourceRelay> relays, DispatcherProperties properties) {
        return relays.map(relay -> OperatorStore.r2dbc(relay.source().connections(), relay.store(),
                properties.operator().readTimeout()));
    }
}
