package dev.dispatcher.app.store;

import dev.dispatcher.sql.AuditSql;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code dispatch_audit} table's retention. Audit rows themselves are written by {@link OperatorStore}, in the
 * transaction of the mutation they record.
 */
public final class AuditTrail {

    private final ConnectionFactory connections;

    private AuditTrail(ConnectionFactory connections) {
        this.connections = connections;
    }

    public static AuditTrail r2dbc(ConnectionFactory connections) {
        return new AuditTrail(connections);
    }

    /** Deletes up to {@code limit} audit rows older than {@code age}; emits how many. */
    public Mono<Long> purgeOlderThan(Duration age, int limit) {
        return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(AuditSql.DELETE_OLD)
                                .bind("$1", age.toMillis()).bind("$2", limit).execute())
                        .flatMap(r -> Mono.from(r.getRowsUpdated())))
                .reduce(0L, Long::sum);
    }
}
