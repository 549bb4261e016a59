package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.sql.AuditSql;
import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operator reads and mutations of the outbox. Every mutation runs in one transaction with its {@code dispatch_audit}
 * row, so it is applied and audited together or not at all.
 *
 * <p>Single-message mutations are optimistic on {@code version} ({@link OptimisticMutation}, the template the
 * inbox's shares). The result is a sealed {@link OperatorMutation} (the API maps each to a response or a problem);
 * a lost race is a {@link OperatorMutation.ConcurrencyConflict}, never retried here.
 */
public final class OperatorStore {

    private final ConnectionFactory connections;
    private final OutboxStore outbox;
    private final Duration readTimeout;

    private OperatorStore(ConnectionFactory connections, OutboxStore outbox, Duration readTimeout) {
        this.connections = connections;
        this.outbox = outbox;
        this.readTimeout = readTimeout;
    }

    /** A store whose listings PostgreSQL cancels after {@code readTimeout} ({@link OperatorReadTimeout}). */
    public static OperatorStore r2dbc(ConnectionFactory connections, OutboxStore outbox, Duration readTimeout) {
        return new OperatorStore(connections, outbox, readTimeout);
    }

    /** A page of rows and the seq to continue after, when there may be more. */
    public record Page(List<OutboxOperatorRow> items, Long nextAfterSeq) {
    }

    /** Backlog figures, dead letters and the pause switch. */
    public record Stats(Backlog backlog, long deadLettered, boolean relayPaused) {
    }

    /** The row, or nothing. */
    public Mono<OutboxOperatorRow> find(UUID id) {
        return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(OutboxSql.FIND).bind("$1", id)
                        .execute()).flatMap(r -> r.map(OutboxOperatorRow::of)))
                .next();
    }

    /**
     * Rows after seq {@code afterSeq} in seq order, optionally of one status, topic and key; fails with {@link
     * OperatorReadTimeout} when PostgreSQL ran it for the read timeout (a filter no index serves, over a long
     * history).
     */
    public Mono<Page> list(MessageStatus status, String topic, String key, long afterSeq, int limit) {
        String sql = OutboxSql.list(status == null ? null : status.name(), topic != null, key != null);
        return Connections.boundedRead(readTimeout, connections, c -> {
                    Statement s = c.createStatement(sql).bind("$1", afterSeq).bind("$2", limit + 1);
                    if (topic != null) {
                        s.bind("$3", topic);
                    }
                    if (key != null) {
                        s.bind(topic != null ? "$4" : "$3", key);
                    }
                    return Flux.from(s.execute()).flatMap(r -> r.map(OutboxOperatorRow::of));
                })
                .collectList()
                .map(rows -> rows.size() > limit
                        ? new Page(rows.subList(0, limit), rows.get(limit - 1).seq())
                        : new Page(rows, null));
    }

    /** Replays a finished message: back to PENDING, attempts 0, visible now. */
    public Mono<OperatorMutation<OutboxOperatorRow>> replay(UUID id, long expectedVersion, String actor) {
        return row(id).apply(connections, expectedVersion, MessageStatus.PENDING,
                c -> c.createStatement(OutboxSql.REPLAY).bind("$1", id).bind("$2", expectedVersion), actor,
                AuditSql.Action.REPLAY, Map.of());
    }

    /** Dead-letters a live message by hand; a relay holding its lease loses it. */
    public Mono<OperatorMutation<OutboxOperatorRow>> deadLetter(UUID id, long expectedVersion, String actor,
            String reason) {
        return row(id).apply(connections, expectedVersion, MessageStatus.DEAD_LETTERED,
                c -> c.createStatement(OutboxSql.MANUAL_DEAD_LETTER).bind("$1", id).bind("$2", expectedVersion)
                        .bind("$3", reason), actor, AuditSql.Action.DEAD_LETTER, Map.of("reason", reason));
    }

    private static OptimisticMutation<OutboxOperatorRow> row(UUID id) {
        return new OptimisticMutation<>(c -> c.createStatement(OutboxSql.FIND_FOR_UPDATE).bind("$1", id),
                OutboxOperatorRow::of, AuditSql.QUEUE_OUTBOX, id.toString(), Map.of());
    }

    /** Replays up to {@code limit} dead letters matching the filter; returns their ids in seq order. */
    public Mono<List<UUID>> replayDeadLetters(String topic, String key, String errorContains, int limit,
            String actor) {
        return Connections.inTransaction(connections, tx -> {
            Statement s = tx.createStatement(OutboxSql.REPLAY_DEAD_LETTERS);
            Binds.nullable(s, "$1", topic);
            Binds.nullable(s, "$2", key);
            Binds.nullable(s, "$3", errorContains);
            s.bind("$4", limit).bind("$5", actor);
            return Flux.from(s.execute()).flatMap(r -> r.map(row -> row.get("id", UUID.class))).collectList();
        });
    }

    /** Backlog, dead letters, and the pause switch as stored. */
    public Mono<Stats> stats(Mono<Boolean> relayPaused) {
        Mono<Long> dead = Connections.autoCommit(connections, c -> Flux.from(c.createStatement(
                        OutboxSql.COUNT_DEAD_LETTERED).execute())
                        .flatMap(r -> r.map(row -> row.get("dead_lettered", Long.class))))
                .next();
        return Mono.zip(outbox.backlog(), dead, relayPaused).map(t -> new Stats(t.getT1(), t.getT2(), t.getT3()));
    }
}
