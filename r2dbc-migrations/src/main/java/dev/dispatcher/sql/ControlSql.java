package dev.dispatcher.sql;

/** Statements on {@code dispatcher_control}: cluster-wide switches every instance reads each poll interval. */
public final class ControlSql {

    private ControlSql() {
    }

    /** The relay's pause switch name. */
    public static final String RELAY_PAUSED = "relay_paused";

    /** Reads one switch. Parameter {@code $1} name. Index: primary key; a one-row read, no locks. */
    public static final String READ = "SELECT enabled FROM dispatcher_control WHERE name = $1";

    /**
     * Sets one switch and returns its previous value. Parameters: {@code $1} name, {@code $2} enabled,
     * {@code $3} who. Index: primary key. The row lock serialises concurrent operators; the last write wins and
     * both are audited by the caller in the same transaction.
     */
    public static final String WRITE = """
            INSERT INTO dispatcher_control (name, enabled, updated_at, updated_by)
            VALUES ($1, $2, now(), $3)
            ON CONFLICT (name) DO UPDATE
               SET enabled = excluded.enabled, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            RETURNING enabled
            """;

    /**
     * Reads one switch and locks it for the rest of the caller's transaction, so an operator's change and its
     * audit row (with the value before) are serialised with other operators'. Parameter {@code $1} name. Index:
     * primary key.
     */
    public static final String READ_FOR_UPDATE = "SELECT enabled FROM dispatcher_control WHERE name = $1 FOR UPDATE";
}
