package dev.dispatcher.app.store;

import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.R2dbcNonTransientResourceException;
import io.r2dbc.spi.R2dbcTransientException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Classifies a database error once, by SQLSTATE class, the way r2dbc-postgresql's {@code ExceptionFactory} maps
 * them (and beside {@code kafka.KafkaFailures}, which does the same for send errors). Every caller that retries a
 * statement or decides a handler failure asks here, so an integrity violation is permanent everywhere.
 *
 * <ul>
 *   <li>{@link Kind#TRANSIENT}: connection exceptions (class 08), serialization failure (40001), deadlock (40P01),
 *       admin or crash shutdown (57P01..57P03), insufficient resources (class 53), a read-only database (25006
 *       {@code read_only_sql_transaction}: a failover left this connection on a server that no longer takes writes,
 *       such as the old primary, now a standby, that DNS still names), and errors without a SQLSTATE from a lost
 *       connection or an exhausted pool;</li>
 *   <li>{@link Kind#TIMEOUT}: the statement was cancelled ({@code query_canceled} 57014, e.g. by
 *       {@code statement_timeout}) or could not take a lock ({@code lock_not_available} 55P03);</li>
 *   <li>{@link Kind#PERMANENT}: integrity violations (class 23), syntax or access rule violations (class 42), data
 *       exceptions (class 22) and anything else a repeat cannot change.</li>
 * </ul>
 * A wrapped driver exception (Spring's {@code DataAccessException}s from {@code DatabaseClient}) is classified by
 * the driver's. {@link Error}s are never classified: they are rethrown.
 *
 * <p>{@link #replacesConnection} says which errors make the connection that saw them useless, so it is closed
 * instead of going back to the pool ({@code Connections}): a read-only session stays read-only, and a pool that
 * kept it would fail every write on it after the writable server is back.
 */
public final class DatabaseFailures {

    private DatabaseFailures() {
    }

    /** How a database error is treated. */
    public enum Kind {
        /** Repeating the statement may succeed. */
        TRANSIENT,
        /** The statement was cancelled or gave up waiting; repeating it may succeed. */
        TIMEOUT,
        /** Repeating the same statement fails the same way. */
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
        // Spring's DatabaseClient wraps the driver's exception in a DataAccessException: the driver's decides
        for (Throwable cause = error.getCause(); !(error instanceof R2dbcException) && cause != null
                && cause != error; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof R2dbcException) {
                error = cause;
            }
        }
        if (error instanceof R2dbcException r2dbc) {
            String state = r2dbc.getSqlState();
            if (state != null && state.length() == 5) {
                return bySqlState(state);
            }
            if (r2dbc instanceof R2dbcTransientException || r2dbc instanceof R2dbcNonTransientResourceException) {
                return Kind.TRANSIENT; // a closed or broken connection carries no SQLSTATE
            }
            return Kind.PERMANENT;
        }
        // the pool's acquire timeout and a connection lost below the driver
        if (error instanceof TimeoutException || error instanceof IOException
                || (error.getCause() != null && error.getCause() != error && error.getCause() instanceof IOException)) {
            return Kind.TRANSIENT;
        }
        return Kind.PERMANENT;
    }

    /**
     * Whether the connection that saw {@code error} must not be used again: the server no longer takes writes on it
     * ({@value #READ_ONLY}), or it is gone (connection exceptions, class 08; admin or crash shutdown, 57P01..57P03).
     * A fresh connection may reach a writable server (DNS moved to the new primary) or find the database writable
     * again; the pool opens one on the next acquisition.
     */
    public static boolean replacesConnection(Throwable error) {
        String state = sqlState(error);
        return state != null && (state.equals(READ_ONLY) || state.startsWith("08") || state.startsWith("57P0"));
    }

    /** Whether {@code error} says the database refused a write because it is read-only ({@value #READ_ONLY}). */
    public static boolean readOnly(Throwable error) {
        return READ_ONLY.equals(sqlState(error));
    }

    /** {@code read_only_sql_transaction}. */
    static final String READ_ONLY = "25006";

    /** Whether repeating the statement may succeed: {@link Kind#TRANSIENT} or {@link Kind#TIMEOUT}. */
    public static boolean isRetryable(Throwable error) {
        return classify(error) != Kind.PERMANENT;
    }

    /**
     * Whether {@code error} is the database refusing the values of a write (a {@link Kind#PERMANENT} error of SQLSTATE
     * class 22 data exception, 23 integrity constraint violation, or 54 program limit exceeded): the same statement
     * with other values may succeed. Intake uses it to find, record by record, what the database refuses; a lost
     * connection, a timeout or a syntax error is never one.
     */
    public static boolean isRecordData(Throwable error) {
        String state = sqlState(error);
        return state != null && (state.startsWith("22") || state.startsWith("23") || state.startsWith("54"));
    }

    /** The SQLSTATE of the driver's exception in {@code error} (itself or a cause), or null. */
    public static String sqlState(Throwable error) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof R2dbcException r2dbc) {
                String state = r2dbc.getSqlState();
                return state != null && state.length() == 5 ? state : null;
            }
        }
        return null;
    }

    static Kind bySqlState(String state) {
        return switch (state) {
            case "57014", "55P03" -> Kind.TIMEOUT;
            case "40001", "40P01", "57P01", "57P02", "57P03", READ_ONLY -> Kind.TRANSIENT;
            default -> switch (state.substring(0, 2)) {
                case "08", "53" -> Kind.TRANSIENT;
                default -> Kind.PERMANENT;
            };
        };
    }
}
