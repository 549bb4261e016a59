package dev.dispatcher.app.store;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.IsolationLevel;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Connection scopes of this package: a pooled connection in autocommit for one statement, or one READ COMMITTED
 * transaction (commit when the work completes, roll back on error or cancellation). Connections are always closed.
 *
 * <p>A connection whose work failed with an error that makes it useless ({@link DatabaseFailures#replacesConnection},
 * a read-only server above all) is closed for good before it is given back, so the pool drops it and opens a fresh
 * one for the next caller: r2dbc-pool validates a released connection locally and invalidates one that is closed
 * ({@code PooledConnection.close}), instead of keeping a session that would refuse every write until the pool's
 * idle time ran out.
 */
final class Connections {

    private Connections() {
    }

    static <T> Flux<T> autoCommit(ConnectionFactory connections, Function<Connection, Flux<T>> work) {
        return Flux.usingWhen(connections.create(), work, Connection::close, Connections::closeAfter,
                Connection::close);
    }

    /**
     * Gives {@code c} back after {@code error}: first closes the physical connection under the pool's when the
     * error {@linkplain DatabaseFailures#replacesConnection replaces it}, so the pool invalidates it on release.
     */
    static Mono<Void> closeAfter(Connection c, Throwable error) {
        return (DatabaseFailures.replacesConnection(error) ? discard(c) : Mono.<Void>empty())
                .then(Mono.defer(() -> Mono.from(c.close())));
    }

    /** Closes the connection a pooled {@code c} wraps (errors ignored: it may be gone already); nothing otherwise. */
    private static Mono<Void> discard(Connection c) {
        return c instanceof Wrapped<?> pooled && pooled.unwrap() instanceof Connection physical
                ? Mono.from(physical.close()).onErrorResume(e -> Mono.empty())
                : Mono.empty();
    }

    /** Opens a READ COMMITTED transaction; the transactions below send their settings with it in one simple query. */
    static final String BEGIN = "BEGIN ISOLATION LEVEL READ COMMITTED";

    /** Opens the transaction of {@link #plannedPerCall}: one simple-query round trip, like a plain {@code BEGIN}. */
    static final String BEGIN_PLANNED_PER_CALL = BEGIN + "; SET LOCAL plan_cache_mode = force_custom_plan";

    /** Opens the transaction of {@link #inIndexOrder}: {@link #BEGIN_PLANNED_PER_CALL} without bitmap scans. */
    static final String BEGIN_INDEX_ORDERED = BEGIN_PLANNED_PER_CALL + "; SET LOCAL enable_bitmapscan = off";

    /**
     * One claim statement in its own READ COMMITTED transaction, planned for its actual parameters and without bitmap
     * scans, committed when its rows have all been read (rolled back on error or cancellation). A claim takes the first
     * rows of a live index in {@code seq} order and stops: an index scan reads about the rows it takes. On a table
     * PostgreSQL has not analysed since its backlog grew (a new table, or a burst after a quiet time) the planner
     * estimates a handful of live rows and prefers a bitmap scan, which reads and sorts the whole backlog on every
     * claim ({@code ClaimPlanIT}). The connection's cached generic plan would not do either: not knowing the limit, it
     * joins the picked rows back to the table with a hash join over a sequential scan ({@code GenericPlanIT}). Two more
     * round trips per claimed batch buy a plan that depends on neither statistics nor a guess.
     */
    static <T> Flux<T> inIndexOrder(ConnectionFactory connections, Function<Connection, Flux<T>> work) {
        return opened(BEGIN_INDEX_ORDERED, connections, work);
    }

    /**
     * One statement in its own READ COMMITTED transaction, planned for its actual parameters rather than with the
     * connection's cached generic plan, for statements whose best plan depends on their values and which run
     * rarely enough that planning each call costs nothing that matters: retention by age.
     */
    static <T> Flux<T> plannedPerCall(ConnectionFactory connections, Function<Connection, Flux<T>> work) {
        return opened(BEGIN_PLANNED_PER_CALL, connections, work);
    }

    /**
     * {@code work} in its own READ COMMITTED transaction with {@code settings} ({@code SET LOCAL ...}) in force, sent
     * with the {@code BEGIN} in one simple query; committed when it completes, rolled back on error or cancellation.
     */
    static <T> Flux<T> withLocalSettings(String settings, ConnectionFactory connections,
            Function<Connection, Flux<T>> work) {
        return opened(BEGIN + "; " + settings, connections, work);
    }

    private static <T> Flux<T> opened(String begin, ConnectionFactory connections,
            Function<Connection, Flux<T>> work) {
        return Flux.usingWhen(connections.create(),
                c -> Flux.from(c.createStatement(begin).execute())
                        .flatMap(Result::getRowsUpdated)
                        .thenMany(Flux.defer(() -> work.apply(c))),
                Connections::commitAndClose, Connections::rollbackAndCloseAfter, Connections::rollbackAndClose);
    }

    /**
     * An operator read: {@code work} in its own READ COMMITTED transaction that PostgreSQL cancels once it has run
     * {@code timeout} ({@code SET LOCAL statement_timeout}, which holds behind a transaction pooler too, and lasts
     * only as long as the transaction), planned for its actual parameters (it runs rarely, and a filter's best index
     * depends on its values: a cursor of 0 or more proves the live indexes' {@code seq > 0}). A cancelled read fails
     * with {@link OperatorReadTimeout}; its connection is rolled back and given back to the pool. So a filter no
     * index serves, walking a long history for a few matches, costs a pooled connection {@code timeout} at most.
     */
    static <T> Flux<T> boundedRead(Duration timeout, ConnectionFactory connections,
            Function<Connection, Flux<T>> work) {
        String settings = "SET LOCAL statement_timeout = " + Math.max(1, timeout.toMillis())
                + "; SET LOCAL plan_cache_mode = force_custom_plan";
        return Connections.<T>withLocalSettings(settings, connections, work)
                .onErrorMap(e -> e instanceof R2dbcException r && QUERY_CANCELED.equals(r.getSqlState()),
                        e -> new OperatorReadTimeout(timeout, e));
    }

    /** SQLSTATE {@code query_canceled}: a statement timeout (or an operator's {@code pg_cancel_backend}). */
    private static final String QUERY_CANCELED = "57014";

    static <T> Mono<T> inTransaction(ConnectionFactory connections, Function<Connection, Mono<T>> work) {
        return Mono.usingWhen(connections.create(),
                tx -> Mono.from(tx.beginTransaction(IsolationLevel.READ_COMMITTED)).then(work.apply(tx)),
                Connections::commitAndClose, Connections::rollbackAndCloseAfter, Connections::rollbackAndClose);
    }

    private static Mono<Void> commitAndClose(Connection tx) {
        return Mono.from(tx.commitTransaction()).then(Mono.from(tx.close()));
    }

    /** On error or cancellation: the pool must not get a connection back mid-transaction. */
    static Mono<Void> rollbackAndClose(Connection tx) {
        return rollback(tx).then(Mono.from(tx.close()));
    }

    /** On error: rolls back, then gives the connection back as {@link #closeAfter} does. */
    static Mono<Void> rollbackAndCloseAfter(Connection tx, Throwable error) {
        return rollback(tx).then(closeAfter(tx, error));
    }

    static Mono<Void> rollback(Connection tx) {
        return Mono.from(tx.rollbackTransaction()).onErrorResume(e -> Mono.empty());
    }
}
