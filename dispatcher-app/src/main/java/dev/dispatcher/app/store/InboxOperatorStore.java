package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.sql.AuditSql;
import dev.dispatcher.sql.InboxSql;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operator reads and mutations of one consumer's inbox dead letters, as {@link OperatorStore} does for the outbox:
 * a page of dead letters, replay of one message with optimistic concurrency on {@code version} (the shared
 * {@link OptimisticMutation} template), and bulk replay by filter; every mutation is audited in its own
 * transaction ({@code dispatch_audit.queue = 'inbox'}, the consumer in {@code detail}). A row whose value was not
 * stored (a poison record over the value limit, or refused by the database) is never replayed.
 */
public final class InboxOperatorStore {

    /** A page of rows and the seq to continue after, when there may be more. */
    public record Page(List<InboxEntry> items, Long nextAfterSeq) {
    }

    private final ConnectionFactory connections;
    private final Duration readTimeout;

    private InboxOperatorStore(ConnectionFactory connections, Duration readTimeout) {
        this.connections = connections;
        this.readTimeout = readTimeout;
    }

    /** A store whose listings PostgreSQL cancels after {@code readTimeout} ({@link OperatorReadTimeout}). */
    public static InboxOperatorStore r2dbc(ConnectionFactory connections, Duration readTimeout) {
        return new InboxOperatorStore(connections, readTimeout);
    }

    /**
     * Up to {@code limit} dead letters of {@code consumer} after seq {@code afterSeq}, in seq order; fails with {@link
     * OperatorReadTimeout} when PostgreSQL ran it for the read timeout.
     */
    public Mono<Page> deadLetters(String consumer, long afterSeq, int limit) {
        return Connections.boundedRead(readTimeout, connections, c -> Flux.from(c.createStatement(InboxSql.DEAD_LETTERS_PAGE)
                        .bind("$1", consumer).bind("$2", afterSeq).bind("$3", limit + 1).execute())
                        .flatMap(r -> r.map(InboxEntry::of)))
                .collectList()
                .map(rows -> rows.size() > limit
                        ? new Page(rows.subList(0, limit), rows.get(limit - 1).seq())
                        : new Page(rows, null));
    }

    /** Replays a finished message of {@code consumer}: back to PENDING, attempts 0, visible now. */
    public Mono<OperatorMutation<InboxEntry>> replay(String consumer, String messageId, long expectedVersion,
            String actor) {
        OptimisticMutation<InboxEntry> row = new OptimisticMutation<>(
                c -> c.createStatement(InboxSql.FIND_FOR_UPDATE).bind("$1", consumer).bind("$2", messageId),
                InboxEntry::of, AuditSql.QUEUE_INBOX, messageId, Map.of("consumer", consumer));
        return row.apply(connections, expectedVersion, MessageStatus.PENDING,
                c -> c.createStatement(InboxSql.REPLAY).bind("$1", consumer).bind("$2", messageId)
                        .bind("$3", expectedVersion), actor, AuditSql.Action.REPLAY, Map.of());
    }

    /**
     * Replays up to {@code limit} dead letters of {@code consumer} matching the filter (null: any), whose value was
     * stored; returns their message ids in seq order.
     */
    public Mono<List<String>> replayDeadLetters(String consumer, String topic, String key, String errorContains,
            int limit, String actor) {
        return Connections.inTransaction(connections, tx -> {
            Statement s = tx.createStatement(InboxSql.REPLAY_DEAD_LETTERS).bind("$1", consumer);
            Binds.nullable(s, "$2", topic);
            Binds.nullable(s, "$3", key);
            Binds.nullable(s, "$4", errorContains);
            s.bind("$5", limit).bind("$6", actor);
            return Flux.from(s.execute()).flatMap(r -> r.map(row -> row.get("message_id", String.class)))
                    .collectList();
        });
    }
}
