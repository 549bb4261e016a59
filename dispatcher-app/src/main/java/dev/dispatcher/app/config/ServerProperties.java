package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.orDefault;
import static dev.dispatcher.app.config.PropertyRules.requireBetween;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * {@code dispatcher.server.*}: bounds of the HTTP server that Spring Boot has no property for.
 *
 * @param maxConnections the most open connections the HTTP server keeps (1..1000000): one accepted beyond it is
 *     closed at once, before a byte of it is read, and counted in {@code dispatcher.server.connections.refused}
 *     (the log says so at most once a minute). Keep it under the process's file-descriptor limit, with room for the
 *     database pools and Kafka
 */
public record ServerProperties(int maxConnections) {

    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

    public ServerProperties {
        requireBetween("server.max-connections", maxConnections, 1, 1_000_000);
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public ServerProperties(@Nullable Integer maxConnections) {
        this(orDefault(maxConnections, DEFAULT_MAX_CONNECTIONS).intValue());
    }

    public static ServerProperties defaults() {
        return new ServerProperties((Integer) null);
    }
}
