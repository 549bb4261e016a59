package dev.dispatcher.app.store;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.postgresql.api.PostgresqlResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link OutboxNotifications} on r2dbc-postgresql: {@link #LISTEN} on its own connection, the driver's notification
 * stream filtered by schema, and {@link #KEEP_ALIVE} every {@code keepAlive}. Thread-safe and stateless.
 */
final class R2dbcOutboxNotifications implements OutboxNotifications {

    /** The channel the outbox insert trigger notifies (migrations V1, V2: {@code pg_notify}, schema as payload). */
    static final String LISTEN = "LISTEN dispatcher_outbox";
    /** Touches no table: a round trip that fails when the connection is dead. */
    static final String KEEP_ALIVE = "SELECT 1";

    private final ConnectionFactory connections;
    private final String schema;
    private final Duration keepAlive;

    R2dbcOutboxNotifications(ConnectionFactory connections, String schema, Duration keepAlive) {
        this.connections = connections instanceof Wrapped<?> wrapped && wrapped.unwrap() instanceof ConnectionFactory cf
                ? cf : connections;
        this.schema = schema;
        this.keepAlive = keepAlive;
    }

    @Override
    public Flux<Signal> listen() {
        return Flux.usingWhen(connections.create(), this::session, Connection::close,
                (c, e) -> Mono.from(c.close()).onErrorResume(x -> Mono.empty()),
                c -> Mono.from(c.close()).onErrorResume(x -> Mono.empty()));
    }

    private Flux<Signal> session(Connection connection) {
        if (!(connection instanceof PostgresqlConnection pg)) {
            return Flux.error(new IllegalStateException("LISTEN needs r2dbc-postgresql, got " + connection));
        }
        Flux<Signal> notifications = pg.getNotifications()
                .filter(n -> schema.equals(n.getParameter()))
                .map(n -> Signal.NOTIFIED);
        Flux<Signal> keepAlives = Flux.interval(keepAlive).onBackpressureDrop()
                .concatMap(tick -> pg.createStatement(KEEP_ALIVE).execute().flatMap(PostgresqlResult::getRowsUpdated))
                .thenMany(Flux.empty());
        return pg.createStatement(LISTEN).execute()
                .flatMap(PostgresqlResult::getRowsUpdated)
                .thenMany(Flux.just(Signal.LISTENING).concatWith(Flux.merge(notifications, keepAlives)));
    }
}
