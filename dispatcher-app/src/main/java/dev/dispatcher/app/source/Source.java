package dev.dispatcher.app.source;

import io.r2dbc.spi.ConnectionFactory;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * One database Dispatcher drains: its name, its own connection pool and the schema of its tables.
 *
 * @param name {@code default} for {@code spring.r2dbc.*}, else the name in {@code dispatcher.sources}
 * @param connections the source's own pool; nothing else uses it, so a source that is down or slow holds only
 *     its own connections
 * @param schema the schema of its tables, the {@code search_path} of its connections
 * @param migrated completes once the source's tables are migrated: at once for a source migrated at start-up,
 *     later for one that could not be reached then (it retries until the database answers); its relay starts after
 * @param wakeUps where the relay's {@code LISTEN} connection comes from: {@code connections} on a direct
 *     connection, a factory straight to PostgreSQL behind a transaction pooler ({@code dispatcher.database.listen-url}),
 *     or {@code null} when there is none, and the relay polls
 */
public record Source(String name, ConnectionFactory connections, String schema, Mono<Void> migrated,
        @Nullable ConnectionFactory wakeUps) {

    public Source {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(migrated, "migrated");
    }

    /** A source reached directly: its {@code LISTEN} connection comes from its own pool's factory. */
    public Source(String name, ConnectionFactory connections, String schema, Mono<Void> migrated) {
        this(name, connections, schema, migrated, connections);
    }
}
