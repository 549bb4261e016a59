package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.quoted;

import io.r2dbc.spi.ConnectionFactoryOptions;
import org.jspecify.annotations.Nullable;

/**
 * How the service reaches PostgreSQL ({@code dispatcher.database.*}): directly, or through a connection pooler in
 * transaction pooling mode (PgBouncer, RDS Proxy, Supavisor), where a session's state does not outlive a
 * transaction. What each pooler must be told is in docs/poolers.md.
 *
 * @param pooler {@code none} (default): {@code spring.r2dbc.url} reaches PostgreSQL itself; {@code transaction}: it
 *     reaches a pooler in transaction mode, so connections send no startup parameters beyond the driver's own (no
 *     {@code search_path}, no {@code plan_cache_mode}), statements are unnamed unless {@code
 *     spring.r2dbc.properties.preparedStatementCacheQueries} says otherwise, the database must give the user its
 *     {@code search_path} (checked at start), migrations need {@code spring.flyway.url}, and the relay wakes on
 *     {@code LISTEN} only over {@code listen-url} (else it polls every {@code dispatcher.relay.poll-interval})
 * @param listenUrl an R2DBC URL straight to PostgreSQL (not through a pooler) for the relay's one {@code LISTEN}
 *     connection, with the user and password of {@code spring.r2dbc.*} unless it names its own; absent: {@code
 *     LISTEN} goes over {@code spring.r2dbc.url} when {@code pooler} is {@code none}, and is not used otherwise
 */
public record DatabaseProperties(@Nullable Pooler pooler, @Nullable String listenUrl) {

    /** The prefix of this block's properties. */
    public static final String PREFIX = DispatcherProperties.PREFIX + ".database";

    public static final Pooler DEFAULT_POOLER = Pooler.NONE;

    public DatabaseProperties {
        pooler = pooler == null ? DEFAULT_POOLER : pooler;
        if (listenUrl != null) {
            if (listenUrl.isBlank()) {
                listenUrl = null;
            } else {
                try {
                    ConnectionFactoryOptions.parse(listenUrl);
                } catch (IllegalArgumentException e) {
                    String masked = SourceProperties.maskedUrl(listenUrl);
                    // the driver's message repeats the URL, password included
                    throw invalid("database.listen-url", "must be an R2DBC URL ("
                            + String.valueOf(e.getMessage()).replace(listenUrl, masked) + ")", quoted(masked));
                }
            }
        }
    }

    /** Every default: a direct connection, {@code LISTEN} over it. */
    public static DatabaseProperties defaults() {
        return new DatabaseProperties(null, null);
    }

    /** Whether connections go through a pooler that keeps no session state between transactions. */
    public boolean transactionPooled() {
        return pooler == Pooler.TRANSACTION;
    }

    /** What stands between the service and PostgreSQL. */
    public enum Pooler {
        /** Nothing: every connection is a PostgreSQL session of its own. */
        NONE,
        /** A pooler in transaction pooling mode: a session lasts one transaction. */
        TRANSACTION
    }
}
