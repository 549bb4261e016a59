package dev.dispatcher.app.outbox;

import io.r2dbc.postgresql.api.PostgresqlConnection;
import io.r2dbc.postgresql.api.PostgresqlResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Holds one dedicated {@code LISTEN dispatcher_outbox} connection and wakes the relay on each notification for
 * its schema, and on every (re)connect (notifications sent while disconnected are lost, so a reconnect counts as
 * one). A keep-alive query detects a dead connection; the listener then reconnects with backoff, without a
 * restart, whether the database restarted or the backend was terminated.
 */
public final class OutboxListener {

    private static final Logger log = LoggerFactory.getLogger(OutboxListener.class);
    static final String CHANNEL = "dispatcher_outbox";

    private final ConnectionFactory connections;
    private final String schema;
    private final Runnable onWork;
    private final Duration keepAlive;
    private volatile Disposable running;

    /**
     * @param connections a factory for the dedicated connection; a pool is unwrapped to its underlying factory
     * @param schema the schema whose notifications count
     * @param onWork called on each relevant notification and reconnect (must be cheap and non-blocking)
     * @param keepAlive how often the connection is checked
     */
    public OutboxListener(ConnectionFactory connections, String schema, Runnable onWork, Duration keepAlive) {
        this.connections = connections instanceof Wrapped<?> wrapped && wrapped.unwrap() instanceof ConnectionFactory cf
                ? cf : connections;
        this.schema = schema;
        this.onWork = onWork;
        this.keepAlive = keepAlive;
    }

    /** Starts listening. Idempotent. */
    public synchronized void start() {
        if (running == null) {
            running = listen().subscribe(n -> onWork.run());
        }
    }

    /** Stops listening and closes the connection. */
    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }

    private Flux<String> listen() {
        return Flux.usingWhen(connections.create(), this::session, Connection::close,
                        (c, e) -> Mono.from(c.close()).onErrorResume(x -> Mono.empty()),
                        c -> Mono.from(c.close()).onErrorResume(x -> Mono.empty()))
                .repeat()
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5))
                        .doBeforeRetry(s -> log.warn("outbox listener lost its connection ({}); reconnecting",
                                s.failure().toString())));
    }

    private Flux<String> session(Connection connection) {
        if (!(connection instanceof PostgresqlConnection pg)) {
            return Flux.error(new IllegalStateException("LISTEN needs r2dbc-postgresql, got " + connection));
        }
        Flux<String> notifications = pg.getNotifications()
                .map(n -> n.getParameter() == null ? "" : n.getParameter())
                .filter(schema::equals);
        Flux<String> keepAlives = Flux.interval(keepAlive).onBackpressureDrop()
                .concatMap(tick -> pg.createStatement("SELECT 1").execute().flatMap(PostgresqlResult::getRowsUpdated))
                .thenMany(Flux.empty());
        return pg.createStatement("LISTEN " + CHANNEL).execute()
                .flatMap(PostgresqlResult::getRowsUpdated)
                .thenMany(Flux.just("connected")
                        .doOnNext(c -> log.debug("outbox listener connected"))
                        .concatWith(Flux.merge(notifications, keepAlives)));
    }
}
