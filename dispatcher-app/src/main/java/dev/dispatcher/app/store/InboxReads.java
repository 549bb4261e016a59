package dev.dispatcher.app.store;

import dev.dispatcher.sql.InboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operators' reads of the inbox: each consumer's backlog and dead letters (a consumer's dead letters themselves:
 * {@link InboxOperatorStore}). Plain reads on their own connection, one statement on the partial indexes of live
 * rows and of dead letters, so their cost follows the backlog and the dead letters, never the completed history.
 */
public final class InboxReads {

    /** One consumer's figures. */
    public record ConsumerBacklog(String consumer, long pending, long retryScheduled, long deadLettered,
            Duration oldestAge) {
    }

    private final ConnectionFactory connections;

    public InboxReads(ConnectionFactory connections) {
        this.connections = connections;
    }

    /** Figures of {@code consumers}, in the given order. */
    public Mono<List<ConsumerBacklog>> backlogs(List<String> consumers) {
        if (consumers.isEmpty()) {
            return Mono.just(List.of());
        }
        return read(c -> Flux.from(c.createStatement(InboxSql.CONSUMER_BACKLOGS)
                        .bind("$1", consumers.toArray(String[]::new)).execute())
                .flatMap(r -> r.map(row -> new ConsumerBacklog(row.get("name", String.class),
                        row.get("pending", Long.class), row.get("retry_scheduled", Long.class),
                        row.get("dead_lettered", Long.class), Duration.ofMillis(row.get("oldest_age_ms", Long.class))))))
                .collectList();
    }

    private <T> Flux<T> read(Function<Connection, Flux<T>> work) {
        return Connections.autoCommit(connections, work);
    }
}
