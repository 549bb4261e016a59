package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.StatusTransition;
import dev.dispatcher.sql.AuditSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.util.Map;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The operator's single-message mutation, one template for both queues' rows: in one READ COMMITTED transaction
 * the row is locked and read ({@code FOR NO KEY UPDATE}: after a concurrent writer commits, its version is the one
 * read), the caller's {@code If-Match} version, the domain's {@link StatusTransition} rules (actor OPERATOR) and the
 * row's own {@link OperatorRow#refusal} are checked, the {@code UPDATE} runs guarded by the version again, and the
 * {@code dispatch_audit} row is written with the states before and after. Applied and audited together or not at
 * all; a lost race is a {@link OperatorMutation.ConcurrencyConflict}, never retried here.
 *
 * @param lock the statement that locks and reads the row, on the transaction's connection
 * @param read the row from a result of {@code lock} or of the update's {@code RETURNING}
 * @param auditQueue {@link AuditSql#QUEUE_OUTBOX} or {@link AuditSql#QUEUE_INBOX}
 * @param messageId the id the audit row names
 * @param auditDetail what else the audit row's {@code detail} says of the target (its consumer)
 */
record OptimisticMutation<E extends OperatorRow>(Function<Connection, Statement> lock, Function<Readable, E> read,
        String auditQueue, String messageId, Map<String, Object> auditDetail) {

    /**
     * Moves the row at {@code expectedVersion} to {@code target} with {@code update} (which must be guarded by that
     * version and return the row), audited as {@code action} by {@code actor} with {@code detail}.
     */
    Mono<OperatorMutation<E>> apply(ConnectionFactory connections, long expectedVersion, MessageStatus target,
            Function<Connection, Statement> update, String actor, AuditSql.Action action,
            Map<String, Object> detail) {
        return Connections.inTransaction(connections, tx -> Flux.from(lock.apply(tx).execute())
                .flatMap(r -> r.map(read::apply))
                .next()
                .flatMap(before -> {
                    if (before.version() != expectedVersion) {
                        return Mono.just(new OperatorMutation.VersionMismatch<>(before, expectedVersion));
                    }
                    if (StatusTransition.find(before.status(), target, StatusTransition.Actor.OPERATOR).isEmpty()) {
                        return Mono.just(new OperatorMutation.IllegalMove<>(before, target, "is "
                                + before.status() + ": an operator cannot move it to " + target));
                    }
                    String refusal = before.refusal(target);
                    if (refusal != null) {
                        return Mono.just(new OperatorMutation.IllegalMove<>(before, target, refusal));
                    }
                    return Flux.from(update.apply(tx).execute())
                            .flatMap(r -> r.map(read::apply))
                            .next()
                            .flatMap(after -> Audit.insert(tx, actor, action, auditQueue, messageId,
                                            merged(detail), before.auditState(), after.auditState())
                                    .thenReturn((OperatorMutation<E>) new OperatorMutation.Done<>(after)))
                            .defaultIfEmpty(new OperatorMutation.ConcurrencyConflict<>(before));
                })
                .defaultIfEmpty(new OperatorMutation.NotFound<>()));
    }

    private Map<String, Object> merged(Map<String, Object> detail) {
        if (auditDetail.isEmpty()) {
            return detail;
        }
        Map<String, Object> all = new java.util.LinkedHashMap<>(auditDetail);
        all.putAll(detail);
        return all;
    }
}
