package dev.dispatcher.sql;

/** Statements on {@code dispatch_audit}: one row per operator mutation, written in the mutation's transaction. */
public final class AuditSql {

    private AuditSql() {
    }

    /** {@code dispatch_audit.queue} of a mutation of an outbox row. */
    public static final String QUEUE_OUTBOX = "outbox";
    /** {@code dispatch_audit.queue} of a mutation of an inbox row. */
    public static final String QUEUE_INBOX = "inbox";

    /** What an audit row records, with the value stored in {@code dispatch_audit.action}. */
    public enum Action {
        REPLAY("replay"),
        DEAD_LETTER("dead_letter"),
        RELAY_PAUSE("relay_pause"),
        RELAY_RESUME("relay_resume");

        private final String sql;

        Action(String sql) {
            this.sql = sql;
        }

        /** The stored value. */
        public String sql() {
            return sql;
        }
    }

    /**
     * A leased row's state as the audit's {@code before_state}/{@code after_state} JSON (no payload), for statements
     * that audit in SQL; {@code %1$s} is the row alias. The same fields as the service's audit rows of single
     * mutations ({@code store.OperatorRow#state}), so both kinds of row read alike.
     */
    public static final String ROW_STATE = """
            jsonb_build_object('status', %1$s.status, 'version', %1$s.version, 'attempts', %1$s.attempts,
                               'visible_after', %1$s.visible_after, 'lease_owner', %1$s.lease_owner,
                               'lease_token', %1$s.lease_token, 'lease_until', %1$s.lease_until,
                               'last_error', %1$s.last_error)""";

    /**
     * Appends one audit row. Parameters: {@code $1} actor, {@code $2} action, {@code $3} queue, {@code $4}
     * message id (nullable), {@code $5} detail JSON, {@code $6} before JSON (nullable), {@code $7} after JSON
     * (nullable). Append-only: no index but the identity primary key is touched on insert.
     */
    public static final String INSERT = """
            INSERT INTO dispatch_audit (actor, action, queue, message_id, detail, before_state, after_state)
            VALUES ($1, $2, $3, $4, coalesce($5::jsonb, '{}'::jsonb), $6::jsonb, $7::jsonb)
            RETURNING id, occurred_at
            """;

    /**
     * The latest {@code $2} audit rows of one message, newest first. Parameter {@code $1} message id (text).
     * Index: {@code dispatch_audit_message_idx (message_id, id)}, read backwards. A plain read.
     */
    public static final String BY_MESSAGE = """
            SELECT id, occurred_at, actor, action, queue, detail::text AS detail, before_state::text AS before_state,
                   after_state::text AS after_state
              FROM dispatch_audit
             WHERE message_id = $1
             ORDER BY id DESC
             LIMIT $2
            """;

    /**
     * Deletes up to {@code $2} audit rows older than {@code $1} ms. Index: {@code dispatch_audit_occurred_brin}.
     * Bounded; run until it returns 0. Run it planned per call: whether the BRIN index pays depends on the cut-off,
     * and a generic plan reads the whole table.
     */
    public static final String DELETE_OLD = """
            DELETE FROM dispatch_audit a
             WHERE a.id IN (SELECT d.id
                              FROM dispatch_audit d
                             WHERE d.occurred_at < now() - $1::bigint * interval '1 millisecond'
                             LIMIT $2)
            """;
}
