package dev.dispatcher.app.store;

import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * The settings a new session of a connection factory starts with, as PostgreSQL reports them: what a transaction
 * pooler's sessions have when the service sends no startup parameters of its own. One statement on one connection,
 * closed after it whatever the outcome.
 */
public final class SessionSettings {

    static final String SETTINGS = "SELECT current_setting('search_path'), current_setting('plan_cache_mode'),"
            + " current_user, current_database(), current_setting('statement_timeout'),"
            + " current_setting('lock_timeout')";

    /** A session's settings. */
    public record Session(String searchPath, String planCacheMode, String user, String database,
            Map<String, String> timeouts) {
    }

    private SessionSettings() {
    }

    /** Reads the settings of one new session of {@code connections}. */
    public static Mono<Session> read(ConnectionFactory connections) {
        return Mono.usingWhen(connections.create(),
                c -> Mono.from(c.createStatement(SETTINGS).execute())
                        .flatMap(result -> Mono.from(result.map((row, meta) -> new Session(
                                row.get(0, String.class), row.get(1, String.class), row.get(2, String.class),
                                row.get(3, String.class), Map.of(
                                        "statement_timeout", String.valueOf(row.get(4, String.class)),
                                        "lock_timeout", String.valueOf(row.get(5, String.class))))))),
                Connection::close);
    }
}
