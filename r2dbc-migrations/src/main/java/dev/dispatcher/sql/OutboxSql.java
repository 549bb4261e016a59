package dev.dispatcher.sql;

/**
 * All statements on {@code outbox_message}. Each names the index it relies on and why it is safe when several
 * relays, producers and operators run at once.
 */
public final class OutboxSql {

    private OutboxSql() {
    }

    /** Live statuses, as a SQL list ({@link LeasedTableSql#LIVE}). */
    static final String LIVE = LeasedTableSql.LIVE;

    private static String claimable(String alias) {
        return LeasedTableSql.claimable(alias);
    }

    /** Columns a claim returns, in {@code ClaimedRow} order. */
    private static final String CLAIM_RETURNING = """
            RETURNING o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload, o.content_type,
                      o.headers::text AS headers, o.correlation_id, o.causation_id, o.status, o.attempts,
                      o.version, o.lease_owner, o.lease_token, o.lease_until, o.created_at,
                      (c.previous_lease_until IS NOT NULL) AS lease_expired
            """;

    private static final String CLAIM_SET = """
            UPDATE outbox_message o
               SET lease_owner = $1,
                   lease_token = gen_random_uuid(),
                   lease_until = now() + $2::bigint * interval '1 millisecond',
                   attempts = o.attempts + 1,
                   last_attempt_at = now()
            """;

    /**
     * Claims up to {@code $3} rows in {@code seq} order, ignoring keys ({@code ordering=none}).
     * Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3} limit.
     *
     * <p>Index: {@code outbox_message_live_seq_idx} (live rows by seq). Concurrency: {@code FOR UPDATE SKIP
     * LOCKED} lets relays claim disjoint rows without waiting; a row leased by a relay that committed after our
     * snapshot is re-checked on its newest version and dropped. Claiming a row whose earlier lease ran out is
     * reported as {@code lease_expired}: workers null {@code lease_until} whenever they end a lease. The UPDATE
     * finds the locked rows by primary key, not by the {@code ctid} the lock step saw: after a concurrent update
     * that is the old version's, and the UPDATE then skips the row although it is locked and claimable (measured:
     * a fifth less server time, but competing relays got short batches and idled).
     */
    public static final String CLAIM_UNORDERED = """
            WITH c AS (
                SELECT m.id, m.lease_until AS previous_lease_until
                  FROM outbox_message m
                 WHERE m.status IN %s
                   AND %s
                 ORDER BY m.seq
                 LIMIT $3
                   FOR UPDATE SKIP LOCKED
            )
            %s
              FROM c
             WHERE o.id = c.id
            %s
            """.formatted(LIVE, claimable("m"), CLAIM_SET, CLAIM_RETURNING);

    /**
     * Claims up to {@code $3} rows keeping per-key order ({@code ordering=per-key}).
     * Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3} limit, {@code $4} key cursor (the
     * walk starts after it and wraps around, so every key with backlog is reached).
     *
     * <p>A key's head is its first live row. Only a key whose head is claimable is taken, and then a contiguous
     * run from the head (stopping at the first row not yet visible), so a key is under at most one lease at a
     * time and its rows go out in seq order. Rows without a key are unordered and taken by seq.
     *
     * <p>Index: {@code outbox_message_live_key_idx} (message_key, seq) for a loose index scan over distinct keys
     * (one descent per key, never a scan of a hot key's tail) and for each run; {@code
     * outbox_message_live_unkeyed_idx} for rows without a key. The walk stops as soon as enough rows are found,
     * so a claim costs about the rows it takes plus the keys it passes that are blocked (leased or waiting to
     * retry): bounded by the in-flight leases, not by the backlog.
     *
     * <p>Concurrency: rows are locked {@code FOR UPDATE SKIP LOCKED} and re-checked on their newest version; a
     * run is kept only up to its first row that could not be locked, so when two relays race for a key, the one
     * that locked the head gets the run and the other gets none of it.
     */
    public static final String CLAIM_PER_KEY = """
            WITH RECURSIVE
            after_cursor AS (
                (SELECT h.message_key, h.seq, h.visible_after, h.lease_until
                   FROM outbox_message h
                  WHERE h.status IN %1$s AND h.message_key IS NOT NULL AND h.message_key > $4
                  ORDER BY h.message_key, h.seq
                  LIMIT 1)
                UNION ALL
                SELECT n.message_key, n.seq, n.visible_after, n.lease_until
                  FROM after_cursor k
                 CROSS JOIN LATERAL (
                       SELECT h.message_key, h.seq, h.visible_after, h.lease_until
                         FROM outbox_message h
                        WHERE h.status IN %1$s AND h.message_key IS NOT NULL AND h.message_key > k.message_key
                        ORDER BY h.message_key, h.seq
                        LIMIT 1) n
            ),
            before_cursor AS (
                (SELECT h.message_key, h.seq, h.visible_after, h.lease_until
                   FROM outbox_message h
                  WHERE h.status IN %1$s AND h.message_key IS NOT NULL AND h.message_key <= $4
                  ORDER BY h.message_key, h.seq
                  LIMIT 1)
                UNION ALL
                SELECT n.message_key, n.seq, n.visible_after, n.lease_until
                  FROM before_cursor k
                 CROSS JOIN LATERAL (
                       SELECT h.message_key, h.seq, h.visible_after, h.lease_until
                         FROM outbox_message h
                        WHERE h.status IN %1$s AND h.message_key IS NOT NULL
                          AND h.message_key > k.message_key AND h.message_key <= $4
                        ORDER BY h.message_key, h.seq
                        LIMIT 1) n
            ),
            open_head AS (
                SELECT w.message_key, w.seq
                  FROM (SELECT * FROM after_cursor UNION ALL SELECT * FROM before_cursor) w
                 WHERE %2$s
                 LIMIT $3
            ),
            keyed AS (
                SELECT run.id, run.seq, run.message_key, run.run_pos
                  FROM open_head oh
                 CROSS JOIN LATERAL (
                       SELECT r.id, r.seq, r.message_key,
                              row_number() OVER w_seq AS run_pos,
                              bool_and(r.ok) OVER w_seq AS contiguous
                         FROM (SELECT x.id, x.seq, x.message_key, (%3$s) AS ok
                                 FROM outbox_message x
                                WHERE x.status IN %1$s AND x.message_key = oh.message_key AND x.seq >= oh.seq
                                ORDER BY x.seq
                                LIMIT $3) r
                       WINDOW w_seq AS (ORDER BY r.seq)) run
                 WHERE run.contiguous
                 LIMIT $3
            ),
            unkeyed AS (
                SELECT u.id, u.seq, NULL::text AS message_key, 1::bigint AS run_pos
                  FROM outbox_message u
                 WHERE u.status IN %1$s AND u.message_key IS NULL AND %4$s
                 ORDER BY u.seq
                 LIMIT $3
            ),
            picked AS (
                SELECT a.id, a.seq, a.message_key, a.run_pos
                  FROM (SELECT * FROM keyed UNION ALL SELECT * FROM unkeyed) a
                 ORDER BY a.seq
                 LIMIT $3
            ),
            locked AS MATERIALIZED (
                SELECT m.id, m.seq, m.message_key, m.lease_until AS previous_lease_until
                  FROM outbox_message m
                 WHERE m.id IN (SELECT p.id FROM picked p)
                   AND m.status IN %1$s
                   AND %5$s
                   FOR UPDATE SKIP LOCKED
            ),
            c AS (
                SELECT g.id, g.previous_lease_until
                  FROM (SELECT l.id, l.message_key, l.previous_lease_until, p.run_pos,
                               row_number() OVER (PARTITION BY l.message_key ORDER BY l.seq) AS locked_pos
                          FROM locked l
                          JOIN picked p ON p.id = l.id) g
                 WHERE g.message_key IS NULL OR g.locked_pos = g.run_pos
            )
            %6$s
              FROM c
             WHERE o.id = c.id
            %7$s
            """.formatted(LIVE, claimable("w"), claimable("x"), claimable("u"), claimable("m"), CLAIM_SET,
            CLAIM_RETURNING);

    /**
     * Applies a batch of lease transitions in one round trip and returns what is needed to classify each: the
     * statement both leased tables share, generated by {@link LeasedTableSql#transition} (parameters, shape and
     * concurrency argument there). Index: the primary key.
     */
    public static final String TRANSITION = LeasedTableSql.transition(LeasedTableSql.OUTBOX);

    /** {@link #TRANSITION} for exactly one request, scalar parameters ({@link LeasedTableSql#transitionOne}). */
    public static final String TRANSITION_ONE = LeasedTableSql.transitionOne(LeasedTableSql.OUTBOX);

    /**
     * Serialises writers of one key for the rest of their transaction, so a key's rows commit in {@code seq}
     * order (identity values are allocated at insert, not at commit). Parameter: {@code $1} the key. Taken by
     * {@code OutboxWriter} before inserting a keyed row ({@link #INGEST_ONE} takes the same lock inside its insert,
     * {@link #LOCK_KEYS} several at once); cheap, never blocks other keys.
     */
    public static final String LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended($1, 7351))";

    /**
     * Inserts one outbox row. Parameters: {@code $1} id (null: generated), {@code $2} topic, {@code $3} key,
     * {@code $4} event type, {@code $5} payload, {@code $6} content type (null: JSON), {@code $7} headers JSON
     * text (null: empty), {@code $8} correlation id, {@code $9} causation id. Returns id and seq. The statement
     * trigger sends one NOTIFY per statement.
     */
    public static final String INSERT = """
            INSERT INTO outbox_message (id, topic, message_key, event_type, payload, content_type, headers,
                                        correlation_id, causation_id)
            VALUES (coalesce($1::uuid, gen_random_uuid()), $2, $3, $4, $5, coalesce($6, 'application/json'),
                    coalesce($7::jsonb, '{}'::jsonb), $8, $9)
            RETURNING id, seq, status, version, created_at
            """;

    /**
     * Deletes up to {@code $3} terminal rows of status {@code $1} finished more than {@code $2} ms ago.
     * Index: {@code outbox_message_created_brin} narrows to old pages (a row finishes after it is created), then
     * the finish time is checked per row. Bounded, so one pass never holds many locks; run until it returns 0.
     */
    public static final String DELETE_FINISHED = """
            DELETE FROM outbox_message o
             WHERE o.id IN (
                   SELECT d.id
                     FROM outbox_message d
                    WHERE d.created_at < now() - $2::bigint * interval '1 millisecond'
                      AND d.status = $1
                      AND coalesce(d.delivered_at, d.dead_lettered_at) < now() - $2::bigint * interval '1 millisecond'
                    LIMIT $3
                      FOR UPDATE SKIP LOCKED)
            """;

    /**
     * Backlog by status and the age of the oldest live row, for gauges and the run summary. Index: {@code
     * outbox_message_live_seq_idx} (index-only for counts of live rows; oldest by smallest seq).
     */
    public static final String BACKLOG = """
            SELECT count(*) FILTER (WHERE b.status = 'PENDING') AS pending,
                   count(*) FILTER (WHERE b.status = 'RETRY_SCHEDULED') AS retry_scheduled,
                   coalesce((SELECT (extract(epoch FROM now() - o.created_at) * 1000)::bigint
                               FROM outbox_message o
                              WHERE o.status IN %1$s
                              ORDER BY o.seq
                              LIMIT 1), 0) AS oldest_age_ms
              FROM outbox_message b
             WHERE b.status IN %1$s
            """.formatted(LIVE);

    // ---- ingest and operator statements

    /**
     * Takes the writer lock of every distinct key in {@code $1} (text array), in lock-id order, so two
     * transactions writing overlapping key sets never deadlock on each other's advisory locks. The same lock as
     * {@link #LOCK_KEY}. Index: none (advisory locks only); cheap, never blocks writers of other keys.
     */
    public static final String LOCK_KEYS = """
            SELECT count(pg_advisory_xact_lock(l.lock_id))
              FROM (SELECT DISTINCT hashtextextended(k, 7351) AS lock_id
                      FROM unnest($1::text[]) AS k
                     WHERE k IS NOT NULL
                     ORDER BY 1) l
            """;

    /**
     * Ingests one message in one autocommit round trip: takes its key's writer lock, then inserts the row unless
     * its id exists. Parameters as {@link #INSERT}, except that {@code $1} is required. Returns the new row, or
     * nothing when the id was taken, and the caller then reads the stored row with {@link #FIND_FOR_INGEST}.
     *
     * <p>Key order: the lock ({@link #LOCK_KEY}'s, {@code hashtextextended(key, 7351)}) must be held before the
     * identity value {@code seq} is allocated, or a writer could take a smaller seq and commit after a larger
     * one. It is: {@code key_lock} calls a volatile function, so PostgreSQL never inlines it; the plan is a
     * {@code CTE Scan} on it under the {@code Insert}, and the scan's projection, which computes the row and its
     * {@code nextval(seq)}, runs on the row the CTE returned, after its filter and after the lock call that
     * produced it (EXPLAIN VERBOSE on PostgreSQL 17.7, generic and custom plans). A null key takes no lock
     * ({@code CASE} evaluates only the branch it picks, and folds to {@code true} in a custom plan); the CTE
     * returns exactly one row either way. The lock is transaction-scoped, and an autocommit statement is its own
     * transaction, so it is released by the commit that makes the row visible: a key's rows commit in seq order.
     *
     * <p>Index: the primary key decides a taken id; a concurrent insert of the same id waits for the other
     * transaction and then does nothing (or inserts, if it rolled back), so a repeated id is never an error and
     * never written twice. A taken id still consumes a seq value (a gap, as with any ON CONFLICT insert).
     */
    public static final String INGEST_ONE = """
            WITH key_lock AS (
                SELECT CASE WHEN $3::text IS NULL THEN true
                            ELSE pg_advisory_xact_lock(hashtextextended($3::text, 7351)) IS NOT NULL END AS held
            )
            INSERT INTO outbox_message (id, topic, message_key, event_type, payload, content_type, headers,
                                        correlation_id, causation_id)
            SELECT $1::uuid, $2, $3, $4, $5, coalesce($6, 'application/json'), coalesce($7::jsonb, '{}'::jsonb),
                   $8, $9
              FROM key_lock
             WHERE key_lock.held
            ON CONFLICT (id) DO NOTHING
            RETURNING id, seq, status, version, created_at
            """;

    /**
     * Reads a stored row for an ingest whose id was taken, and whether its content equals the request's;
     * parameters as {@link #INSERT}. Index: the primary key. Runs after {@link #INGEST_ONE} as a new statement,
     * so under READ COMMITTED it sees the row a concurrent ingest committed while the insert waited on it.
     */
    public static final String FIND_FOR_INGEST = """
            SELECT id, seq, status, version, created_at,
                   (topic = $2 AND message_key IS NOT DISTINCT FROM $3 AND event_type = $4 AND payload = $5
                    AND content_type = coalesce($6, 'application/json')
                    AND headers = coalesce($7::jsonb, '{}'::jsonb)
                    AND correlation_id IS NOT DISTINCT FROM $8 AND causation_id IS NOT DISTINCT FROM $9)
                       AS same_content
              FROM outbox_message
             WHERE id = $1::uuid
            """;

    /**
     * The messages of a batch ingest, one row each with its position {@code ord} (1-based). Parameters (arrays of
     * equal length, except {@code $5}): {@code $1} ids, {@code $2} topics, {@code $3} keys, {@code $4} event types,
     * {@code $5} all payloads concatenated (one {@code bytea}: r2dbc-postgresql has no {@code bytea[]} codec, and
     * this spares base64 both ways), {@code $6} each payload's 1-based start in {@code $5}, {@code $7} its length,
     * {@code $8} content types (null: JSON), {@code $9} headers JSON text (null: empty), {@code $10} correlation
     * ids, {@code $11} causation ids.
     */
    private static final String BATCH_INPUT = """
            unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $6::int[], $7::int[], $8::text[], $9::text[],
                   $10::text[], $11::text[]) WITH ORDINALITY
                AS r(id, topic, message_key, event_type, payload_from, payload_length, content_type, headers,
                     correlation_id, causation_id, ord)
            """;

    /**
     * Inserts the messages of a batch ingest in request order, skipping ids that exist; parameters as {@code
     * BATCH_INPUT} above. Returns the rows written; an input id not returned was taken (before, or earlier in
     * this batch), and the caller reads those with {@link #FIND_BATCH_FOR_INGEST}. The caller holds the writer
     * locks of every key of the batch first ({@link #LOCK_KEYS}, same transaction), so a key's rows commit in
     * seq order; rows are inserted, and take their seq, in {@code ord} order, so a key's rows within the batch
     * keep the request's order.
     *
     * <p>Index: the primary key decides a taken id, as for {@link #INGEST_ONE}: a concurrent insert of the same
     * id waits for the other transaction, then does nothing. The statement trigger sends one NOTIFY.
     */
    public static final String INGEST_BATCH = """
            INSERT INTO outbox_message (id, topic, message_key, event_type, payload, content_type, headers,
                                        correlation_id, causation_id)
            SELECT r.id, r.topic, r.message_key, r.event_type,
                   substring($5::bytea FROM r.payload_from FOR r.payload_length),
                   coalesce(r.content_type, 'application/json'), coalesce(r.headers::jsonb, '{}'::jsonb),
                   r.correlation_id, r.causation_id
              FROM %s
             ORDER BY r.ord
            ON CONFLICT (id) DO NOTHING
            RETURNING id, seq, status, version, created_at
            """.formatted(BATCH_INPUT);

    /**
     * Reads the stored rows of batch messages whose ids were taken, and whether each one's content equals the
     * request's; parameters as {@link #INGEST_BATCH}. Returns {@code ord} and the row for every input whose id
     * exists. Index: the primary key, one probe per input. Runs in the batch's transaction after {@link
     * #INGEST_BATCH}, as a new statement, so it sees rows a concurrent ingest committed while the insert waited,
     * and rows this batch wrote for an earlier occurrence of the same id.
     */
    public static final String FIND_BATCH_FOR_INGEST = """
            SELECT r.ord, o.id, o.seq, o.status, o.version, o.created_at,
                   (o.topic = r.topic AND o.message_key IS NOT DISTINCT FROM r.message_key
                    AND o.event_type = r.event_type
                    AND o.payload = substring($5::bytea FROM r.payload_from FOR r.payload_length)
                    AND o.content_type = coalesce(r.content_type, 'application/json')
                    AND o.headers = coalesce(r.headers::jsonb, '{}'::jsonb)
                    AND o.correlation_id IS NOT DISTINCT FROM r.correlation_id
                    AND o.causation_id IS NOT DISTINCT FROM r.causation_id)
                       AS same_content
              FROM %s
              JOIN outbox_message o ON o.id = r.id
            """.formatted(BATCH_INPUT);

    /** Every column an operator sees, headers as JSON text. */
    private static final String ENTRY_COLUMNS = """
            id, seq, topic, message_key, event_type, payload, content_type, headers::text AS headers,
            correlation_id, causation_id, status, attempts, visible_after, lease_owner, lease_token, lease_until,
            version, created_at, last_attempt_at, delivered_at, dead_lettered_at, last_error
            """;

    /** One row by id. Parameter {@code $1} id. Index: the primary key; a plain read, no locks. */
    public static final String FIND = "SELECT " + ENTRY_COLUMNS + " FROM outbox_message WHERE id = $1::uuid";

    /**
     * One row by id, locked for an operator mutation in the caller's transaction. Parameter {@code $1} id.
     * Index: the primary key. {@code FOR NO KEY UPDATE} waits for a concurrent writer (a relay's transition or
     * another operator) and then returns its committed version, so the caller decides on the current row; a
     * relay's claim ({@code SKIP LOCKED}) passes over the row meanwhile.
     */
    public static final String FIND_FOR_UPDATE = FIND + " FOR NO KEY UPDATE";

    /**
     * Operator replay: back to {@code PENDING}, visible now, attempts reset, lease and finish times cleared,
     * version bumped. Parameters: {@code $1} id, {@code $2} expected version. Index: the primary key. Optimistic:
     * the {@code version} guard is re-checked on the newest row version, so a lost race updates nothing (the
     * caller reports a conflict, never retries). Terminal statuses only; the domain checks legality first.
     */
    public static final String REPLAY = """
            UPDATE outbox_message
               SET status = 'PENDING', attempts = 0, visible_after = now(), lease_owner = NULL, lease_token = NULL,
                   lease_until = NULL, delivered_at = NULL, dead_lettered_at = NULL, version = version + 1
             WHERE id = $1::uuid AND version = $2 AND status IN ('DELIVERED', 'DEAD_LETTERED')
            """ + "RETURNING " + ENTRY_COLUMNS;

    /**
     * Operator dead-letter of a live row: lease cleared (a relay still holding it gets {@code StaleLease}),
     * version bumped. Parameters: {@code $1} id, {@code $2} expected version, {@code $3} reason. Index: the primary
     * key. Optimistic on {@code version}, as {@link #REPLAY}.
     */
    public static final String MANUAL_DEAD_LETTER = """
            UPDATE outbox_message
               SET status = 'DEAD_LETTERED', dead_lettered_at = now(), last_error = $3, lease_owner = NULL,
                   lease_token = NULL, lease_until = NULL, version = version + 1
             WHERE id = $1::uuid AND version = $2 AND status IN ('PENDING', 'RETRY_SCHEDULED')
            """ + "RETURNING " + ENTRY_COLUMNS;

    /** Row state as audit JSON (no payload); {@code %s} is the row alias. */
    private static final String AUDIT_STATE = """
            jsonb_build_object('status', %1$s.status, 'version', %1$s.version, 'attempts', %1$s.attempts,
                               'visible_after', %1$s.visible_after, 'lease_owner', %1$s.lease_owner,
                               'lease_token', %1$s.lease_token, 'lease_until', %1$s.lease_until,
                               'last_error', %1$s.last_error)""";

    /**
     * Bulk replay of dead letters by filter, audited per message, in one statement. Parameters: {@code $1} topic
     * (null: any), {@code $2} key (null: any), {@code $3} text the last error contains (null: any), {@code $4}
     * limit, {@code $5} actor. Returns the replayed ids in seq order.
     *
     * <p>Index: {@code outbox_message_dead_letter_idx} (topic, seq) where DEAD_LETTERED, which holds only dead
     * letters, so the filter scans few rows. Concurrency: {@code FOR NO KEY UPDATE SKIP LOCKED} passes over rows
     * another operator is changing; the UPDATE re-checks the status on the newest version; each replayed row gets
     * its audit row in the same statement, so a row is replayed and audited once or not at all.
     */
    public static final String REPLAY_DEAD_LETTERS = """
            WITH picked AS MATERIALIZED (
                SELECT d.id, d.seq, %1$s AS before_state
                  FROM outbox_message d
                 WHERE d.status = 'DEAD_LETTERED'
                   AND ($1::text IS NULL OR d.topic = $1)
                   AND ($2::text IS NULL OR d.message_key = $2)
                   AND ($3::text IS NULL OR strpos(d.last_error, $3) > 0)
                 ORDER BY d.seq
                 LIMIT $4
                   FOR NO KEY UPDATE SKIP LOCKED
            ),
            upd AS (
                UPDATE outbox_message t
                   SET status = 'PENDING', attempts = 0, visible_after = now(), lease_owner = NULL,
                       lease_token = NULL, lease_until = NULL, delivered_at = NULL, dead_lettered_at = NULL,
                       version = t.version + 1
                  FROM picked p
                 WHERE t.id = p.id AND t.status = 'DEAD_LETTERED'
                RETURNING t.id, p.seq, p.before_state, %2$s AS after_state
            ),
            audited AS (
                INSERT INTO dispatch_audit (actor, action, queue, message_id, detail, before_state, after_state)
                SELECT $5, '%3$s', 'outbox', u.id::text, jsonb_build_object('bulk', true), u.before_state,
                       u.after_state
                  FROM upd u
                RETURNING message_id
            )
            SELECT u.id FROM upd u ORDER BY u.seq
            """.formatted(AUDIT_STATE.formatted("d"), AUDIT_STATE.formatted("t"), AuditSql.Action.REPLAY.sql());

    /**
     * Operator listing: rows after a seq cursor in seq order, optionally of one status, topic and key. Parameters: {@code $1} cursor (seq; 0 from the start), {@code $2} limit,
     * then {@code $3} topic and {@code $4} key when {@code byTopic}/{@code byKey}.
     *
     * <p>The status is written into the text (an enum value, never user text), so the planner can use the partial
     * indexes: {@code outbox_message_live_seq_idx} or {@code outbox_message_live_key_idx} for live statuses,
     * {@code outbox_message_dead_letter_idx} for dead letters, the {@code seq} unique index otherwise. A plain
     * read: rows may change while an operator pages; each page is consistent.
     */
    public static String list(String statusOrNull, boolean byTopic, boolean byKey) {
        if (statusOrNull != null && !statusOrNull.matches("[A-Z_]{1,32}")) {
            throw new IllegalArgumentException("status must be a status name, but was '" + statusOrNull + "'");
        }
        StringBuilder sql = new StringBuilder("SELECT ").append(ENTRY_COLUMNS)
                .append(" FROM outbox_message WHERE seq > $1");
        if (statusOrNull != null) {
            sql.append(" AND status = '").append(statusOrNull).append('\'');
        }
        if (byTopic) {
            sql.append(" AND topic = $3");
        }
        if (byKey) {
            sql.append(" AND message_key = $").append(byTopic ? 4 : 3);
        }
        return sql.append(" ORDER BY seq LIMIT $2").toString();
    }

    /**
     * Dead-lettered rows, for the stats endpoint. Index: {@code outbox_message_dead_letter_idx} (index-only;
     * small because dead letters are rare).
     */
    public static final String COUNT_DEAD_LETTERED =
            "SELECT count(*) AS dead_lettered FROM outbox_message WHERE status = 'DEAD_LETTERED'";
}
