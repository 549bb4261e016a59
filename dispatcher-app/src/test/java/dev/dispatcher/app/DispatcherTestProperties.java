package dev.dispatcher.app;

import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TestServers;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The properties that start {@link DispatcherApplication} against the shared {@link TestServers}, for integration
 * tests: R2DBC and Flyway connection, Kafka bootstrap servers, and the schema under test.
 *
 * <p>Use {@link #forSchema(String)} with {@code SpringApplicationBuilder.properties(...)} or as command-line
 * arguments ({@link #asArguments(String)}), or {@link #register(DynamicPropertyRegistry, Supplier)} from a
 * {@code @DynamicPropertySource} method. Calling any of them starts the shared servers on first use (blocking).
 * The schema need not exist: the application's Flyway creates and migrates it; a schema made by
 * {@link PostgresServer#createSchema(String)} is already migrated and Flyway leaves it as it is.
 */
public final class DispatcherTestProperties {

    private DispatcherTestProperties() {
    }

    /** The properties for {@code schema}, in a stable order; the map is modifiable. */
    public static Map<String, Object> forSchema(String schema) {
        PostgresServer postgres = TestServers.postgres();
        KafkaServer kafka = TestServers.kafka();
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.r2dbc.url", postgres.r2dbcUrl());
        properties.put("spring.r2dbc.username", postgres.username());
        properties.put("spring.r2dbc.password", postgres.password());
        properties.put("spring.flyway.url", postgres.jdbcUrl());
        properties.put("spring.flyway.user", postgres.username());
        properties.put("spring.flyway.password", postgres.password());
        properties.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        properties.put("dispatcher.schema", schema);
        // the service turns Netty's sampled leak tracking off for speed; tests keep it, so a leaked buffer is reported
        properties.put("spring.netty.leak-detection", "simple");
        return properties;
    }

    /** {@link #forSchema(String)} as {@code --name=value} arguments for {@code SpringApplication.run}. */
    public static String[] asArguments(String schema) {
        return forSchema(schema).entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
    }

    /**
     * Starts the service with {@code properties} as command-line arguments, on a free port ({@code server.port=0}
     * unless given), for tests that need a context of their own (their own database or broker).
     */
    public static ConfigurableApplicationContext start(Map<String, Object> properties) {
        Map<String, Object> all = new LinkedHashMap<>(properties);
        all.putIfAbsent("server.port", 0);
        return new SpringApplicationBuilder(DispatcherApplication.class).run(all.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue()).toArray(String[]::new));
    }

    /** Where a context of {@link #start} listens: {@code http://localhost:<port>}. */
    public static String baseUrl(ConfigurableApplicationContext context) {
        return "http://localhost:" + context.getEnvironment().getRequiredProperty("local.server.port");
    }

    /** Registers {@link #forSchema(String)}; the schema supplier is read once, when the context starts. */
    public static void register(DynamicPropertyRegistry registry, Supplier<String> schema) {
        forSchema(schema.get()).forEach((name, value) -> registry.add(name, () -> value));
    }
}
