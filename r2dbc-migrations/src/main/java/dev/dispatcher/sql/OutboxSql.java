package dev.dispatcher.sql;

/**
 * All statements on {@code outbox_message}. Each names the index it relies on and why it is safe when several
 * relays, producers and operators run at once.
 */
public final class OutboxSql {

    private OutboxSql() {
    }

    /** Live statuses, as a SQL list. */
    static final String LIVE = "('PENDING', 'RETRY_SCHEDULED')";

    /** A row a worker may claim now: visible and not under a live lease (an expired lease may be taken over). */
    private static final String CLAIMABLE = "%1$s.visible_after <= now() AND (%1$s.lease_until IS NULL OR %1$s.lease_until < now())";

    static String claimable(String alias) {
        return String.format(CLAIMABLE, alias);
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
     * reported as {@code lease_expired}: workers null {@code lease_until} whenever they end a lease.
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
     * Applies a batch of lease transitions in one round trip and returns what is needed to classify each.
     * Parameters (arrays of equal length): {@code $1} ids, {@code $2} our lease tokens, {@code $3} kinds
     * ({@code deliver|retry|dead_letter|renew|release}), {@code $4} milliseconds (retry delay or renewal
     * length; 0 otherwise), {@code $5} errors (null where none).
     *
     * <p>Shape, as DESIGN.md fixes it: inputs are de-duplicated (first occurrence wins) and carried with their
     * ordinal; {@code snap} reads the rows as the statement's snapshot sees them; {@code cur} locks the current
     * rows in id order ({@code FOR NO KEY UPDATE} waits for a concurrent writer, then yields its committed
     * version, or nothing if it deleted the row), so two batches never deadlock; the UPDATE joins {@code cur}
     * with its own unnest of the parameters (one input CTE feeding both the snapshot read and the UPDATE was seen
     * to return a re-checked row twice on PG 18.1), and its guard (our token, lease not ended, live status) is on
     * the target row's own columns, which PostgreSQL re-checks on the newest version.
     *
     * <p>Lease-ending transitions null {@code lease_until} and keep {@code lease_token}, so terminal rows keep the
     * token of the lease that finished them and a retry after a lost commit acknowledgement is recognised as our
     * own write. Deliver, retry and dead-letter change the status and bump {@code version}; renew and release do
     * not. Release gives the attempt back. Index: the primary key.
     */
    public static final String TRANSITION = """
            WITH input AS (
                SELECT DISTINCT ON (i.id) i.id, i.ord
                  FROM unnest($1::uuid[]) WITH ORDINALITY AS i(id, ord)
                 ORDER BY i.id, i.ord
            ),
            snap AS (
                SELECT s.id, s.status, s.lease_token, s.lease_until, s.version, s.attempts
                  FROM outbox_message s
                 WHERE s.id IN (SELECT id FROM input)
            ),
            cur AS MATERIALIZED (
                SELECT k.id, k.status, k.lease_token, k.lease_until, k.version, k.attempts
                  FROM outbox_message k
                 WHERE k.id = ANY($1::uuid[])
                 ORDER BY k.id
                   FOR NO KEY UPDATE
            ),
            upd AS (
                UPDATE outbox_message t
                   SET status = CASE r.kind WHEN 'deliver' THEN 'DELIVERED'
                                            WHEN 'retry' THEN 'RETRY_SCHEDULED'
                                            WHEN 'dead_letter' THEN 'DEAD_LETTERED'
                                            ELSE t.status END,
                       version = CASE WHEN r.kind IN ('deliver', 'retry', 'dead_letter') THEN t.version + 1
                                      ELSE t.version END,
                       attempts = CASE WHEN r.kind = 'release' THEN greatest(t.attempts - 1, 0) ELSE t.attempts END,
                       lease_until = CASE WHEN r.kind = 'renew' THEN now() + r.millis * interval '1 millisecond'
                                          ELSE NULL END,
                       visible_after = CASE WHEN r.kind = 'retry' THEN now() + r.millis * interval '1 millisecond'
                                            ELSE t.visible_after END,
                       delivered_at = CASE WHEN r.kind = 'deliver' THEN now() ELSE t.delivered_at END,
                       dead_lettered_at = CASE WHEN r.kind = 'dead_letter' THEN now() ELSE t.dead_lettered_at END,
                       last_error = CASE WHEN r.kind IN ('retry', 'dead_letter') THEN r.error ELSE t.last_error END
                  FROM cur c
                  JOIN (SELECT DISTINCT ON (x.id) x.id, x.token, x.kind, x.millis, x.error
                          FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[])
                               WITH ORDINALITY AS x(id, token, kind, millis, error, ord)
                         ORDER BY x.id, x.ord) r ON r.id = c.id
                 WHERE t.id = c.id
                   AND t.lease_token = r.token
                   AND t.lease_until IS NOT NULL
                   AND t.status IN %s
                RETURNING t.id, t.status, t.lease_token, t.lease_until, t.version, t.attempts
            )
            SELECT i.id,
                   snap.id IS NOT NULL AS snap_found, snap.status AS snap_status, snap.lease_token AS snap_token,
                   snap.lease_until AS snap_until, snap.version AS snap_version, snap.attempts AS snap_attempts,
                   cur.id IS NOT NULL AS cur_found, cur.status AS cur_status, cur.lease_token AS cur_token,
                   cur.lease_until AS cur_until, cur.version AS cur_version, cur.attempts AS cur_attempts,
                   upd.id IS NOT NULL AS upd_found, upd.status AS upd_status, upd.lease_token AS upd_token,
                   upd.lease_until AS upd_until, upd.version AS upd_version, upd.attempts AS upd_attempts,
                   now() AS db_now
              FROM input i
              LEFT JOIN snap ON snap.id = i.id
              LEFT JOIN cur ON cur.id = i.id
              LEFT JOIN upd ON upd.id = i.id
             ORDER BY i.ord
            """.formatted(LIVE);

    /**
     * Serialises writers of one key for the rest of their transaction, so a key's rows commit in {@code seq}
     * order (identity values are allocated at insert, not at commit). Parameter: {@code $1} the key. Taken by
     * {@code OutboxWriter} and the ingest API before inserting a keyed row; cheap, never blocks other keys.
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
}
