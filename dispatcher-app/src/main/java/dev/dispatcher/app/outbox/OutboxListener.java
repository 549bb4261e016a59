package dev.dispatcher.app.outbox;

import dev.dispatcher.app.store.OutboxNotifications;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.util.retry.Retry;

/**
 * Keeps one {@link OutboxNotifications} session open and wakes the relay on each notification for its schema, and
 * on every (re)connect (notifications sent while disconnected are lost, so a reconnect counts as one). When the
 * session's connection dies (the database restarted, the backend was terminated), the listener reconnects with
 * backoff, without a restart.
 *
 * <p>Without a connection factory (behind a transaction pooler with no {@code dispatcher.database.listen-url}:
 * {@code LISTEN} through the pooler would listen on a server session that the next transaction no longer holds) it
 * does nothing, and the relay finds new rows by polling every {@code dispatcher.relay.poll-interval}.
 */
final class OutboxListener {

    private static final Logger log = LoggerFactory.getLogger(OutboxListener.class);

    private final @Nullable OutboxNotifications notifications;
    private final Runnable onWork;
    private volatile Disposable running;

    /**
     * @param connections a factory for the dedicated connection, a pool unwrapped to its underlying factory; {@code
     *     null}: no wake-ups, the relay polls
     * @param schema the schema whose notifications count
     * @param onWork called on each relevant notification and reconnect (must be cheap and non-blocking)
     * @param keepAlive how often the connection is checked
     */
    public OutboxListener(@Nullable ConnectionFactory connections, String schema, Runnable onWork,
            Duration keepAlive) {
        this.notifications = connections == null ? null : OutboxNotifications.r2dbc(connections, schema, keepAlive);
        this.onWork = onWork;
    }

    /** Starts listening. Idempotent. */
    public synchronized void start() {
        if (notifications == null) {
            return;
        }
        if (running == null) {
            running = notifications.listen()
                    .doOnNext(signal -> {
                        if (signal == OutboxNotifications.Signal.LISTENING) {
                            log.debug("outbox listener connected");
                        }
                    })
                    .repeat()
                    .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5))
                            .doBeforeRetry(s -> log.warn("outbox listener lost its connection ({}); reconnecting",
                                    s.failure().toString())))
                    .subscribe(signal -> onWork.run());
        }
    }

    /** Stops listening and closes the connection. */
    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }
}
