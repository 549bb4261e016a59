package dev.dispatcher.app.store;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.IsolationLevel;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Connection scopes of this package: a pooled connection in autocommit for one statement, or one READ COMMITTED
 * transaction (commit when the work completes, roll back on error or cancellation). Connections are always closed.
 */
final class Connections {

    private Connections() {
    }

    static <T> Flux<T> autoCommit(ConnectionFactory connections, Function<Connection, Flux<T>> work) {
        return Flux.usingWhen(connections.create(), work, Connection::close, (c, e) -> c.close(), Connection::close);
    }

    static <T> Mono<T> inTransaction(ConnectionFactory connections, Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(connections.create(),
                tx -> Mono.from(tx.beginTransaction(IsolationLevel.READ_COMMITTED)).then(work.apply(tx)),
                tx -> Mono.from(tx.commitTransaction()).then(Mono.from(tx.close())),
                (tx, e) -> rollback(tx).then(Mono.from(tx.close())),
                tx -> rollback(tx).then(Mono.from(tx.close())));
    }

    static Mono<Void> rollback(Connection tx) {
        return Mono.from(tx.rollbackTransaction()).onErrorResume(e -> Mono.empty());
    }
}
