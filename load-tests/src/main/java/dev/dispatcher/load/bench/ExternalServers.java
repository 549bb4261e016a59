package dev.dispatcher.load.bench;

import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.PostgresServer;
import java.net.URI;

/**
 * Servers a benchmark did not start: an external PostgreSQL ({@code --pg-url jdbc:postgresql://host:port/db},
 * {@code --pg-user}, {@code --pg-password}) or Kafka ({@code --bootstrap host:port}), so figures can be taken on
 * the servers users run. Closing them leaves the servers running.
 */
public final class ExternalServers {

    private ExternalServers() {
    }

    /** PostgreSQL at a JDBC URL {@code jdbc:postgresql://host[:port]/database}. */
    public static PostgresServer postgres(String jdbcUrl, String username, String password) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String host = uri.getHost();
        int port = uri.getPort() < 0 ? 5432 : uri.getPort();
        String database = uri.getPath().substring(1);
        return new PostgresServer() {
            @Override
            public String host() {
                return host;
            }

            @Override
            public int port() {
                return port;
            }

            @Override
            public String database() {
                return database;
            }

            @Override
            public String username() {
                return username;
            }

            @Override
            public String password() {
                return password;
            }

            @Override
            public void close() {
                // not ours to stop
            }

            @Override
            public String toString() {
                return "external PostgreSQL " + jdbcUrl;
            }
        };
    }

    /** Kafka at {@code bootstrapServers}. */
    public static KafkaServer kafka(String bootstrapServers) {
        return new KafkaServer() {
            @Override
            public String bootstrapServers() {
                return bootstrapServers;
            }

            @Override
            public void close() {
                // not ours to stop
            }

            @Override
            public String toString() {
                return "external Kafka " + bootstrapServers;
            }
        };
    }
}
