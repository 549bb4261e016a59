package dev.dispatcher.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The Dispatcher service: a Spring Boot WebFlux application that relays the outbox to Kafka, feeds the inbox from
 * Kafka, and serves the HTTP API and actuator endpoints.
 *
 * <p>Start-up migrates the schema with Flyway (the one blocking step, on the main thread) and fails with a message
 * naming the property and the bad value when {@code dispatcher.*} configuration is invalid; see
 * {@link dev.dispatcher.app.config.DispatcherProperties}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class DispatcherApplication {

    /** Starts the service with Spring Boot's usual sources of configuration. */
    public static void main(String[] args) {
        SpringApplication.run(DispatcherApplication.class, args);
    }
}
