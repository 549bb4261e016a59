package dev.dispatcher.app.store;

import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.R2dbcTimeoutException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Classifies a database error once, where it is seen, by PostgreSQL's SQLSTATE class (as r2dbc-postgresql's
 * {@code ExceptionFactory} does) and looking through wrapping exceptions (Spring's {@code DataAccessException}s
 * from {@code DatabaseClient}). {@link Error}s are never classified: they are rethrown.
 */
public final class DatabaseFailures {

    private DatabaseFailures() {
    }

    /** What a failed database call means for its caller. */
    public enum Kind {
        /**
         * The server refused in time: {@code statement_timeout} (57014) or {@code lock_timeout} (55P03) ended the
         * statement, or no pooled connection was free within the acquire time. Nothing was written.
         */
        TIMEOUT,
        /**
         * The database is unreachable or refusing work (SQLSTATE classes 08, 53, 57P0x, or no connection could
         * be made). An error the server sent wrote nothing; a connection lost with a statement in flight may have
         * committed it.
         */
        UNAVAILABLE,
        /** Another transaction won (40001 serialization, 40P01 deadlock): nothing was written; safe to repeat. */
        CONFLICT,
        /** A constraint the write broke (class 23). Nothing was written; repeating fails the same way. */
        INTEGRITY,
        /** Anything else (bad statement, bad data): repeating fails the same way. */
        PERMANENT
    }

    /**
     * The kind of {@code error}.
     *
     * @throws Error if {@code error} is one
     */
    public static Kind classify(Throwable error) {
        if (error instanceof Error fatal) {
            throw fatal;
        }
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof R2dbcException r2dbc) {
                if (r2dbc.getSqlState() != null) {
                    return bySqlState(r2dbc.getSqlState());
                }
                // raised by the driver or the pool, not the server: an acquire that timed out, or a connection
                // that is closed, refused or overloaded (PostgresConnectionClosedException and its kin)
                return r2dbc instanceof R2dbcTimeoutException ? Kind.TIMEOUT : Kind.UNAVAILABLE;
            }
            if (e instanceof TimeoutException) {
                return Kind.TIMEOUT;
            }
            if (e instanceof IOException) {
                return Kind.UNAVAILABLE;
            }
        }
        return Kind.PERMANENT;
    }

    static Kind bySqlState(String sqlState) {
        return switch (sqlState) {
            case "57014", "55P03" -> Kind.TIMEOUT;
            case "40001", "40P01" -> Kind.CONFLICT;
            case "57P01", "57P02", "57P03" -> Kind.UNAVAILABLE;
            default -> switch (sqlState.length() >= 2 ? sqlState.substring(0, 2) : "") {
                case "08", "53", "58" -> Kind.UNAVAILABLE;
                case "23" -> Kind.INTEGRITY;
                default -> Kind.PERMANENT;
            };
        };
    }

    /** Whether repeating the same call may succeed. */
    public static boolean isTransient(Throwable error) {
        return switch (classify(error)) {
            case TIMEOUT, UNAVAILABLE, CONFLICT -> true;
            case INTEGRITY, PERMANENT -> false;
        };
    }
}
