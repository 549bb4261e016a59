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

    /** Reactor Netty's system property for the number of event-loop threads of each of its loop groups. */
    static final String EVENT_LOOPS_PROPERTY = "reactor.netty.ioWorkerCount";

    /** Starts the service with Spring Boot's usual sources of configuration. */
    public static void main(String[] args) {
        defaultEventLoops(Runtime.getRuntime().availableProcessors());
        SpringApplication.run(DispatcherApplication.class, args);
    }

    /**
     * Unless {@value #EVENT_LOOPS_PROPERTY} is set, gives each of Reactor Netty's two loop groups (the HTTP server's
     * and the PostgreSQL driver's) half the processors, so that all event loops together match the core count. Reactor
     * Netty's own default is {@code max(processors, 4)} per group: on a 2-core machine that is 8 loop threads for 2
     * cores, more threads than cores to run them (docs/measurements.md, "HTTP ingest, measured"). Set the property
     * ({@code -Dreactor.netty.ioWorkerCount=N}) to choose otherwise.
     */
    static void defaultEventLoops(int processors) {
        if (System.getProperty(EVENT_LOOPS_PROPERTY) == null) {
            System.setProperty(EVENT_LOOPS_PROPERTY, Integer.toString(Math.max(1, processors / 2)));
        }
    }
}
