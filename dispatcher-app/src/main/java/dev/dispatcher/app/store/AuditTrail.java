package dev.dispatcher.app.store;

import dev.dispatcher.sql.AuditSql;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code dispatch_audit} table's reads and retention. Audit rows themselves are written by
 * {@link OperatorStore}, in the transaction of the mutation they record.
 */
public final class AuditTrail {

    /**
     * One operator mutation of a message, as {@code dispatch_audit} holds it; {@code detail}, {@code before} and
     * {@code after} are JSON object texts.
     */
    public record Entry(long id, Instant occurredAt, String actor, String action, String detail, String before,
            String after) {
    }

    private final ConnectionFactory connections;

    private AuditTrail(ConnectionFactory connections) {
        this.connections = connections;
    }

    public static AuditTrail r2dbc(ConnectionFactory connections) {
        return new AuditTrail(connections);
    }

    /** The latest {@code limit} audit rows of message {@code id}, newest first (rows outlive the message). */
    public Mono<List<Entry>> byMessage(UUID id, int limit) {
        return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(AuditSql.BY_MESSAGE)
                                .bind("$1", id.toString()).bind("$2", limit).execute())
                        .flatMap(r -> r.map(row -> new Entry(row.get("id", Long.class),
                                row.get("occurred_at", Instant.class), row.get("actor", String.class),
                                row.get("action", String.class), row.get("detail", String.class),
                                row.get("before_state", String.class), row.get("after_state", String.class)))))
                .collectList();
    }

    /** Deletes up to {@code limit} audit rows older than {@code age}; emits how many. */
    public Mono<Long> purgeOlderThan(Duration age, int limit) {
        return Connections.plannedPerCall(connections, c -> Flux.from(c.createStatement(AuditSql.DELETE_OLD)
                                .bind("$1", age.toMillis()).bind("$2", limit).execute())
                        .flatMap(r -> Mono.from(r.getRowsUpdated())))
                .reduce(0L, Long::sum);
    }
}
