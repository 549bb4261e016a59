package dev.dispatcher.app.api;

import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.domain.IllegalStatusTransitionException;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.StatusTransition;
import dev.dispatcher.sql.AuditSql;
import dev.dispatcher.sql.ControlSql;
import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Operator reads and mutations of the outbox and the relay switch. Every mutation runs in one transaction with
 * its {@code dispatch_audit} row, so it is applied and audited together or not at all.
 *
 * <p>Single-message mutations are optimistic on {@code version}: the row is locked and read, the caller's
 * version and the domain's {@link StatusTransition} rules are checked, and the {@code UPDATE} is guarded by the
 * version again. A stale version, an illegal move or a lost race is a {@code 409} carrying the current row; it
 * is never retried here.
 */
final class OperatorStore {

    private final ConnectionFactory connections;
    private final Supplier<Mono<Backlog>> backlog;

    OperatorStore(ConnectionFactory connections, Supplier<Mono<Backlog>> backlog) {
        this.connections = connections;
        this.backlog = backlog;
    }

    /** A page of rows and the seq to continue after, when there may be more. */
    record Page(List<MessageView> items, Long nextAfterSeq) {
    }

    /** Backlog figures, dead letters and the pause switch. */
    record Stats(Backlog backlog, long deadLettered, boolean relayPaused) {
    }

    Mono<MessageView> find(UUID id) {
        return Transactions.read(connections, c -> Flux.from(c.createStatement(OutboxSql.FIND).bind("$1", id).execute())
                        .flatMap(r -> r.map(MessageView::of)))
                .next();
    }

    Mono<Page> list(MessageStatus status, String topic, String key, long afterSeq, int limit) {
        String sql = OutboxSql.list(status == null ? null : status.name(), topic != null, key != null);
        return Transactions.read(connections, c -> {
                    Statement s = c.createStatement(sql).bind("$1", afterSeq).bind("$2", limit + 1);
                    if (topic != null) {
                        s.bind("$3", topic);
                    }
                    if (key != null) {
                        s.bind(topic != null ? "$4" : "$3", key);
                    }
                    return Flux.from(s.execute()).flatMap(r -> r.map(MessageView::of));
                })
                .collectList()
                .map(rows -> rows.size() > limit
                        ? new Page(rows.subList(0, limit), rows.get(limit - 1).seq())
                        : new Page(rows, null));
    }

    /** One operator mutation of a message, as {@code dispatch_audit} holds it. */
    record AuditEntry(long id, String occurredAt, String actor, String action, JsonNode detail, JsonNode before,
            JsonNode after) {
    }

    /** The latest {@code limit} audit rows of message {@code id}, newest first (rows outlive the message). */
    Mono<List<AuditEntry>> audit(UUID id, int limit) {
        return Transactions.read(connections, c -> Flux.from(c.createStatement(AuditSql.BY_MESSAGE)
                        .bind("$1", id.toString()).bind("$2", limit).execute())
                        .flatMap(r -> r.map(row -> new AuditEntry(row.get("id", Long.class),
                                row.get("occurred_at", Instant.class).toString(),
                                row.get("actor", String.class), row.get("action", String.class),
                                json(row.get("detail", String.class)), json(row.get("before_state", String.class)),
                                json(row.get("after_state", String.class))))))
                .collectList();
    }

    private static JsonNode json(String text) {
        return text == null ? null : IngestRequestParser.JSON.readTree(text);
    }

    /** Replays a finished message: back to PENDING, attempts 0, visible now. */
    Mono<MessageView> replay(UUID id, long expectedVersion, String actor) {
        return mutate(id, expectedVersion, actor, MessageStatus.PENDING, "replay",
                c -> c.createStatement(OutboxSql.REPLAY).bind("$1", id).bind("$2", expectedVersion), Map.of());
    }

    /** Dead-letters a live message by hand; a relay holding its lease loses it. */
    Mono<MessageView> deadLetter(UUID id, long expectedVersion, String actor, String reason) {
        return mutate(id, expectedVersion, actor, MessageStatus.DEAD_LETTERED, "dead_letter",
                c -> c.createStatement(OutboxSql.MANUAL_DEAD_LETTER).bind("$1", id).bind("$2", expectedVersion)
                        .bind("$3", reason), Map.of("reason", reason));
    }

    private Mono<MessageView> mutate(UUID id, long expectedVersion, String actor, MessageStatus target,
            String action, java.util.function.Function<Connection, Statement> update, Map<String, Object> detail) {
        return Transactions.inTransaction(connections, tx -> Flux.from(tx.createStatement(OutboxSql.FIND_FOR_UPDATE)
                        .bind("$1", id).execute())
                .flatMap(r -> r.map(MessageView::of))
                .next()
                .switchIfEmpty(Mono.error(() -> ApiProblem.notFound("no outbox message with id " + id)))
                .flatMap(before -> {
                    if (before.version() != expectedVersion) {
                        return Mono.error(ApiProblem.conflict("version-mismatch", "message " + id + " is at version "
                                        + before.version() + ", not " + expectedVersion + " (If-Match); read it again")
                                .with("current", before.toJson(false)));
                    }
                    try {
                        StatusTransition.require(before.status(), target, StatusTransition.Actor.OPERATOR);
                    } catch (IllegalStatusTransitionException e) {
                        return Mono.error(ApiProblem.conflict("illegal-transition", "message " + id + " is "
                                        + before.status() + ": an operator cannot move it to " + target)
                                .with("current", before.toJson(false)));
                    }
                    return Flux.from(update.apply(tx).execute())
                            .flatMap(r -> r.map(MessageView::of))
                            .next()
                            .switchIfEmpty(Mono.error(() -> ApiProblem.conflict("concurrency-conflict", "message "
                                    + id + " changed while this request ran").with("current", before.toJson(false))))
                            .flatMap(after -> audit(tx, actor, action, id.toString(), detail, before.auditState(),
                                    after.auditState()).thenReturn(after));
                }));
    }

    /** Replays up to {@code limit} dead letters matching the filter; returns their ids in seq order. */
    Mono<List<UUID>> replayDeadLetters(String topic, String key, String errorContains, int limit, String actor) {
        return Transactions.inTransaction(connections, tx -> {
            Statement s = tx.createStatement(OutboxSql.REPLAY_DEAD_LETTERS);
            nullable(s, "$1", topic);
            nullable(s, "$2", key);
            nullable(s, "$3", errorContains);
            s.bind("$4", limit).bind("$5", actor);
            return Flux.from(s.execute()).flatMap(r -> r.map(row -> row.get("id", UUID.class))).collectList();
        });
    }

    Mono<Stats> stats() {
        Mono<Long> dead = Transactions.read(connections, c -> Flux.from(c.createStatement(OutboxSql.COUNT_DEAD_LETTERED)
                        .execute()).flatMap(r -> r.map(row -> row.get("dead_lettered", Long.class))))
                .next();
        Mono<Boolean> paused = Transactions.read(connections, c -> Flux.from(c.createStatement(ControlSql.READ)
                        .bind("$1", ControlSql.RELAY_PAUSED).execute())
                        .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("enabled", Boolean.class)))))
                .next().defaultIfEmpty(false);
        return Mono.zip(backlog.get(), dead, paused).map(t -> new Stats(t.getT1(), t.getT2(), t.getT3()));
    }

    /** Sets the cluster-wide pause switch; returns the value it had. */
    Mono<Boolean> setRelayPaused(boolean paused, String actor) {
        return Transactions.inTransaction(connections, tx -> Flux.from(tx.createStatement(ControlSql.READ_FOR_UPDATE)
                        .bind("$1", ControlSql.RELAY_PAUSED).execute())
                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("enabled", Boolean.class))))
                .next()
                .defaultIfEmpty(false)
                .flatMap(previous -> Flux.from(tx.createStatement(ControlSql.WRITE).bind("$1", ControlSql.RELAY_PAUSED)
                                .bind("$2", paused).bind("$3", actor).execute())
                        .flatMap(r -> r.map(row -> 1))
                        .then(audit(tx, actor, paused ? "relay_pause" : "relay_resume", null, Map.of(),
                                Map.of(ControlSql.RELAY_PAUSED, previous), Map.of(ControlSql.RELAY_PAUSED, paused)))
                        .thenReturn(previous)));
    }

    private static Mono<Void> audit(Connection tx, String actor, String action, String messageId,
            Map<String, Object> detail, Map<String, Object> before, Map<String, Object> after) {
        Statement s = tx.createStatement(AuditSql.INSERT).bind("$1", actor).bind("$2", action).bind("$3", "outbox");
        nullable(s, "$4", messageId);
        s.bind("$5", IngestRequestParser.JSON.writeValueAsString(detail))
                .bind("$6", IngestRequestParser.JSON.writeValueAsString(before))
                .bind("$7", IngestRequestParser.JSON.writeValueAsString(after));
        return Flux.from(s.execute()).flatMap(r -> r.map(row -> 1)).then();
    }

    private static void nullable(Statement s, String name, String value) {
        if (value == null) {
            s.bindNull(name, String.class);
        } else {
            s.bind(name, value);
        }
    }
}
