package dev.dispatcher.app.store;

import dev.dispatcher.sql.AuditSql;
import dev.dispatcher.sql.ControlSql;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@code dispatcher_control}: the cluster-wide relay pause switch, read by every instance, set by operators. */
public final class ControlStore {

    private final ConnectionFactory connections;

    private ControlStore(ConnectionFactory connections) {
        this.connections = connections;
    }

    public static ControlStore r2dbc(ConnectionFactory connections) {
        return new ControlStore(connections);
    }

    /** Whether the relay is paused cluster-wide (false when the switch row is absent). */
    public Mono<Boolean> relayPaused() {
        return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(ControlSql.READ)
                                .bind("$1", ControlSql.RELAY_PAUSED).execute())
                        .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("enabled", Boolean.class)))))
                .next()
                .defaultIfEmpty(false);
    }

    /**
     * Sets the switch and audits it in one transaction; returns the value it had. The row lock serialises
     * concurrent operators; each change is audited with the value before.
     */
    public Mono<Boolean> setRelayPaused(boolean paused, String actor) {
        return Connections.inTransaction(connections, tx -> Flux.from(tx.createStatement(ControlSql.READ_FOR_UPDATE)
                        .bind("$1", ControlSql.RELAY_PAUSED).execute())
                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("enabled", Boolean.class))))
                .next()
                .defaultIfEmpty(false)
                .flatMap(previous -> Flux.from(tx.createStatement(ControlSql.WRITE)
                                .bind("$1", ControlSql.RELAY_PAUSED).bind("$2", paused).bind("$3", actor).execute())
                        .flatMap(r -> r.map(row -> 1))
                        .then(Audit.insert(tx, actor,
                                paused ? AuditSql.Action.RELAY_PAUSE : AuditSql.Action.RELAY_RESUME,
                                AuditSql.QUEUE_OUTBOX, null, Map.of(),
                                Map.of(ControlSql.RELAY_PAUSED, previous), Map.of(ControlSql.RELAY_PAUSED, paused)))
                        .thenReturn(previous)));
    }
}
