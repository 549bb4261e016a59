package dev.dispatcher.app.observe;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
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

    /** Boot's default of {@code management.tracing.sampling.probability} (Dispatcher's application.yml sets 0). */
    static final String BOOT_DEFAULT_PROBABILITY = "0.1";

    @Bean
    MessageTracing messageTracing(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator,
            @Value("${management.tracing.sampling.probability:" + BOOT_DEFAULT_PROBABILITY + "}") double probability) {
        return MessageTracing.of(tracer.getIfAvailable(), propagator.getIfAvailable(), probability);
    }
}
