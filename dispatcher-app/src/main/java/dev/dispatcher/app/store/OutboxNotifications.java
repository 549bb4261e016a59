package dev.dispatcher.app.store;

import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import reactor.core.publisher.Flux;

/**
 * The outbox's {@code LISTEN/NOTIFY} channel: the insert trigger notifies once per statement or transaction, with
 * the row's schema as the payload.
 */
public interface OutboxNotifications {

    /** What a listening session emits. */
    enum Signal {
        /** {@code LISTEN} took effect: notifications sent before (while not listening) were lost. */
        LISTENING,
        /** A notification for this store's schema. */
        NOTIFIED
    }

    /**
     * One listening session on a dedicated connection: {@link Signal#LISTENING} once, then {@link Signal#NOTIFIED}
     * per notification for this store's schema. A keep-alive query notices a dead connection; the session then
     * ends with its error. Cancelling closes the connection. Lazy.
     */
    Flux<Signal> listen();

    /**
     * Notifications for {@code schema}, each session on a new connection of {@code connections} (a pool is
     * unwrapped to the factory it pools: a listening connection is held for as long as it listens).
     *
     * @param keepAlive how often the connection is checked
     */
    static OutboxNotifications r2dbc(ConnectionFactory connections, String schema, Duration keepAlive) {
        return new R2dbcOutboxNotifications(connections, schema, keepAlive);
    }
}
