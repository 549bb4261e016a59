package dev.dispatcher.app.api;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Connection scopes for the API's stores: one R2DBC transaction per call (commit when the work completes, roll back
 * on error or cancellation), or a connection in auto-commit.
 */
final class Transactions {

    private Transactions() {
    }

    static <T> Mono<T> inTransaction(ConnectionFactory connections, Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(connections.create(),
                tx -> Mono.from(tx.beginTransaction()).then(work.apply(tx)),
                tx -> Mono.from(tx.commitTransaction()).then(Mono.from(tx.close())),
                (tx, e) -> Mono.from(tx.rollbackTransaction()).onErrorResume(x -> Mono.empty())
                        .then(Mono.from(tx.close())),
                tx -> Mono.from(tx.rollbackTransaction()).onErrorResume(x -> Mono.empty())
                        .then(Mono.from(tx.close())));
    }

    /**
     * Work on its own connection in auto-commit: each statement is its own transaction, with no BEGIN or COMMIT
     * round trip. For a single statement, or statements that need not commit together.
     */
    static <T> Mono<T> autoCommit(ConnectionFactory connections, Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(connections.create(), work, Connection::close, (c, e) -> c.close(), Connection::close);
    }

    /** A plain read on its own connection, in auto-commit. */
    static <T> Flux<T> read(ConnectionFactory connections, Function<Connection, Flux<T>> work) {
        return Flux.usingWhen(connections.create(), work, Connection::close, (c, e) -> c.close(), Connection::close);
    }
}
