package dev.dispatcher.app.observe;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link MessageTracing} on Boot's Micrometer Tracing beans (the OpenTelemetry bridge); off when tracing is
 * disabled ({@code management.tracing.enabled=false} leaves a no-op tracer). Spans are exported only where an
 * exporter is configured ({@code management.opentelemetry.tracing.export.otlp.endpoint}); sampling follows
 * {@code management.tracing.sampling.probability}, parent-based.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

    @Bean
    MessageTracing messageTracing(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
        return MessageTracing.of(tracer.getIfAvailable(), propagator.getIfAvailable());
    }
}
