package dev.dispatcher.app.store;

import dev.dispatcher.sql.InboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operators' reads of the inbox: each consumer's backlog and dead letters, and a page of one consumer's dead
 * letters. Plain reads on their own connection, each one statement on the partial indexes of live rows and of dead
 * letters, so their cost follows the backlog and the dead letters, never the completed history.
 */
public final class InboxReads {

    /** One consumer's figures. */
    public record ConsumerBacklog(String consumer, long pending, long retryScheduled, long deadLettered,
            Duration oldestAge) {
    }

    /** A dead-lettered inbox row, without its payload. */
    public record DeadLetter(String messageId, long seq, String sourceTopic, int partition, long offset, String key,
            String eventType, int attempts, long version, Instant receivedAt, Instant deadLetteredAt,
            String lastError) {
    }

    /** A page of dead letters and the seq to continue after, when there may be more. */
    public record Page(List<DeadLetter> items, Long nextAfterSeq) {
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

    /** Up to {@code limit} dead letters of {@code consumer} after seq {@code afterSeq}, in seq order. */
    public Mono<Page> deadLetters(String consumer, long afterSeq, int limit) {
        return read(c -> Flux.from(c.createStatement(InboxSql.DEAD_LETTERS_PAGE).bind("$1", consumer)
                        .bind("$2", afterSeq).bind("$3", limit + 1).execute())
                .flatMap(r -> r.map(row -> new DeadLetter(row.get("message_id", String.class),
                        row.get("seq", Long.class), row.get("source_topic", String.class),
                        row.get("source_partition", Integer.class), row.get("source_offset", Long.class),
                        row.get("message_key", String.class), row.get("event_type", String.class),
                        row.get("attempts", Integer.class), row.get("version", Long.class),
                        row.get("created_at", Instant.class), row.get("dead_lettered_at", Instant.class),
                        row.get("last_error", String.class)))))
                .collectList()
                .map(rows -> rows.size() > limit
                        ? new Page(rows.subList(0, limit), rows.get(limit - 1).seq())
                        : new Page(rows, null));
    }

    private <T> Flux<T> read(Function<Connection, Flux<T>> work) {
        return Connections.autoCommit(connections, work);
    }
}
