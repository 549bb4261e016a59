package dev.dispatcher.sql;

/**
 * All statements on {@code outbox_message}. Each names the index it relies on and why it is safe when several
 * relays, producers and operators run at once.
 */
public final class OutboxSql {

    private OutboxSql() {
    }

    /**
     * The visible-after time of a new row delayed by {@code $n} milliseconds (null: none, visible from the
     * transaction's start like any row), added to the database clock: writers compute a duration, SQL adds it.
     *
     * <p>An application's writer adds it to {@code clock_timestamp()}, the clock at the insert: its transaction may
     * have begun long before the write, and a delay counted from {@code now()}, the transaction's start, would make
     * the row visible early. Ingest adds it to {@code now()}: its transaction starts after the request computed the
     * delay, so {@code now()} is never early there, and a volatile {@code clock_timestamp()} in the insert's
     * projection would move {@code nextval(seq)} below the join with the key-lock CTE (see {@link #INGEST}).
     */
    static String visibleAfter(String clock, String delayMillisParameter) {
        return "coalesce(" + clock + " + " + delayMillisParameter + " * interval '1 millisecond', now())";
    }

    /** Live statuses, as a SQL list ({@link LeasedTableSql#LIVE}). */
    static final String LIVE = LeasedTableSql.LIVE;

    private static String claimable(String alias) {
        return LeasedTableSql.claimable(alias);
    }

    /**
     * Columns a claim returns. The service reads them by position (0 {@code id} to 17 {@code lease_expired}), so keep
     * their order, or change the reader ({@code R2dbcOutboxStore.claimed}) with it.
     */
    private static final String CLAIM_RETURNING = """
            RETURNING o.id, o.seq, o.topic, o.message_key, o.event_type, o.payload, o.content_type,
                      o.headers::text AS headers, o.correlation_id, o.causation_id, o.status, o.attempts,
                      o.version, o.lease_owner, o.lease_token, o.lease_until, o.created_at,
                      (c.previous_lease_until IS NOT NULL) AS lease_expired
            """;

    private static final String CLAIM_SET = """
            UPDATE outbox_message o
               SET lease_owner = $1,
                   lease_token = %s,
                   lease_until = now() + $2::bigint * interval '1 millisecond',
                   attempts = o.attempts + 1,
                   last_attempt_at = now()
            """.formatted(LeasedTableSql.BATCH_TOKEN);

    /**
     * Claims up to {@code $3} rows in {@code seq} order, ignoring keys ({@code ordering=none}), and of those the first
     * whose payloads fit {@code $4} bytes ({@link LeasedTableSql#withinBudget}).
     * Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3} limit, {@code $4} payload byte budget.
     *
     * <p>Index: {@code outbox_message_live_seq_idx} (live rows by seq; {@code seq > 0} matches its predicate, V4).
     * Concurrency: {@code FOR UPDATE SKIP LOCKED} lets relays claim disjoint rows without waiting; a row leased by a
     * relay that committed after our snapshot is re-checked on its newest version and dropped. Claiming a row whose
     * earlier lease ran out is reported as {@code lease_expired}: workers null {@code lease_until} whenever they end a
     * lease. The UPDATE finds the locked rows by primary key, not by the {@code ctid} the lock step saw: after a
     * concurrent update that is the old version's, and the UPDATE then skips the row although it is locked and
     * claimable, so competing relays would get short batches. Run it with bitmap scans off ({@code SET LOCAL
     * enable_bitmapscan = off}): on a table not analysed since its backlog grew the planner otherwise reads and sorts
     * the whole backlog on every claim.
     *
     * <p>Commit: asynchronous, for the claim's own transaction ({@link LeasedTableSql#ASYNC_CLAIM_COMMIT}).
     */
    public static final String CLAIM_UNORDERED = """
            WITH c AS (
            %s
            )
            %s
              FROM c
             WHERE o.id = c.id AND %s
            %s
            """.formatted(LeasedTableSql.withinBudget("""
                (SELECT m.id, m.seq, m.lease_until AS previous_lease_until, octet_length(m.payload) AS bytes
                   FROM outbox_message m
                  WHERE m.status IN %s AND m.seq > 0
                    AND %s
                  ORDER BY m.seq
                  LIMIT $3
                    FOR UPDATE SKIP LOCKED)""".formatted(LIVE, claimable("m")), "$4"), CLAIM_SET,
            LeasedTableSql.ASYNC_CLAIM_COMMIT, CLAIM_RETURNING);

    /**
     * Claims up to {@code $3} rows keeping per-key order within each topic ({@code ordering=per-key}, the default:
     * the unit of order is {@code (topic, key)}), and of those the first whose payloads fit {@code $5} bytes
     * ({@link LeasedTableSql#withinBudget}); the statement both leased tables share, generated by {@link
     * PerKeyClaimSql} (shape and concurrency argument there) with {@code topic} before the key. A key's head and run
     * are its first live rows in one topic, so a key whose head in one topic waits (to be retried, or held back
     * while its topic is missing) never holds its rows in another topic. Parameters: {@code $1} owner, {@code $2}
     * lease length in ms, {@code $3} limit, {@code $4} cursor key (text), {@code $5} payload byte budget, {@code $6}
     * cursor topic (text; the walk starts after {@code ($6, $4)}, {@code ('', '')} from the start).
     *
     * <p>Index: {@code outbox_message_live_topic_key_idx} (topic, message_key, seq) for the walk over units and each
     * run (V8; the walk and the runs say its predicate's {@code length(topic) > 0}, which every row meets, so that only
     * this statement uses it), {@code outbox_message_live_unkeyed_idx} for rows without a key. A unit's rows commit
     * in seq order: writers take {@link #LOCK_KEY} (on the key, which covers every topic) before their rows take a
     * seq.
     */
    public static final String CLAIM_PER_KEY = PerKeyClaimSql.statement(new PerKeyClaimSql.Shape(
            LeasedTableSql.OUTBOX, alias -> alias + ".message_key",
            alias -> alias + ".message_key IS NOT NULL AND length(" + alias + ".topic) > 0",
            alias -> alias + ".message_key IS NULL", CLAIM_SET, CLAIM_RETURNING, "$5", "$3", "topic", "$6"));

    /**
     * {@link #CLAIM_PER_KEY} with the key alone as the unit of order ({@code ordering=per-key-across-topics}): a
     * key's rows are handed on in seq order whatever their topics, so a key's head in one topic holds its rows in
     * every other. Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3} limit, {@code $4} key
     * cursor (text), {@code $5} payload byte budget.
     *
     * <p>Index: {@code outbox_message_live_key_idx} (message_key, seq) for the walk over keys and each run, {@code
     * outbox_message_live_unkeyed_idx} for rows without a key. A key's rows commit in seq order: writers take
     * {@link #LOCK_KEY} before their rows take a seq.
     */
    public static final String CLAIM_PER_KEY_ACROSS_TOPICS = PerKeyClaimSql.statement(new PerKeyClaimSql.Shape(
            LeasedTableSql.OUTBOX, alias -> alias + ".message_key", alias -> alias + ".message_key IS NOT NULL",
            alias -> alias + ".message_key IS NULL", CLAIM_SET, CLAIM_RETURNING, "$5", "$3"));

    /**
     * Applies a batch of lease transitions in one round trip and returns what is needed to classify each: the
     * statement both leased tables share, generated by {@link LeasedTableSql#transition} (parameters, shape and
     * concurrency argument there). Index: the primary key.
     */
    public static final String TRANSITION = LeasedTableSql.transition(LeasedTableSql.OUTBOX);

    /** {@link #TRANSITION} for exactly one request, scalar parameters ({@link LeasedTableSql#transitionOne}). */
    public static final String TRANSITION_ONE = LeasedTableSql.transitionOne(LeasedTableSql.OUTBOX);

    /**
     * Deliver of one claimed batch's rows still held under its token, one guarded UPDATE (parameters and concurrency
     * argument at {@link LeasedTableSql#deliverLeased}). Index: the primary key.
     */
    public static final String DELIVER_LEASED = LeasedTableSql.deliverLeased(LeasedTableSql.OUTBOX);

    /** {@link #DELIVER_LEASED} for one row, scalar parameters ({@link LeasedTableSql#deliverOne}). */
    public static final String DELIVER_ONE = LeasedTableSql.deliverOne(LeasedTableSql.OUTBOX);

    /**
     * Serialises writers of one key for the rest of their transaction, so a key's rows commit in {@code seq}
     * order (identity values are allocated at insert, not at commit). Parameter: {@code $1} the key. Taken by
     * {@code OutboxWriter} before inserting a keyed row ({@link #INGEST} takes the same locks inside its insert); cheap, never blocks other keys.
     *
     * <p>The lock is on the key, whatever the topic, under every ordering. The invariant the per-key claims rely on
     * is: <em>for each unit of order, the unit's rows become visible in {@code seq} order</em>. A lock on the key
     * makes a key's rows commit in seq order across all topics, which is what {@link #CLAIM_PER_KEY_ACROSS_TOPICS}
     * needs, and implies it for each {@code (topic, key)}, which is what {@link #CLAIM_PER_KEY} needs. A lock on
     * {@code (topic, key)} would be finer under the default ordering (writers of one key in two topics would not
     * wait for each other) but would break the across-topics option, and writers (an application's transaction,
     * ingest) cannot know for certain which ordering every relay of the schema runs at the moment they commit; the
     * key lock is correct for both, at the cost of serialising a key's writers in different topics.
     */
    public static final String LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended($1, 7351))";

    /**
     * Inserts one outbox row. Parameters: {@code $1} id (null: generated), {@code $2} topic, {@code $3} key,
     * {@code $4} event type, {@code $5} payload, {@code $6} content type (null: JSON), {@code $7} headers JSON
     * text (null: empty), {@code $8} correlation id, {@code $9} causation id, {@code $10} delay in milliseconds
     * (null: none; added to {@code clock_timestamp()}, see {@code visibleAfter}). Returns id, seq, status, version, created_at and visible_after. The
     * statement trigger sends one NOTIFY per transaction.
     */
    public static final String INSERT = """
            INSERT INTO outbox_message (id, topic, message_key, event_type, payload, content_type, headers,
                                        correlation_id, causation_id, visible_after)
            VALUES (coalesce($1::uuid, gen_random_uuid()), $2, $3, $4, $5, coalesce($6, 'application/json'),
                    coalesce($7::jsonb, '{}'::jsonb), $8, $9, %s)
            RETURNING id, seq, status, version, created_at, visible_after
            """.formatted(visibleAfter("clock_timestamp()", "$10::bigint"));

    /**
     * Deletes up to {@code $3} terminal rows of status {@code $1} finished more than {@code $2} ms ago.
     * Index: {@code outbox_message_created_brin} narrows to old pages (a row finishes after it is created), then
     * the finish time is checked per row. Bounded, so one pass never holds many locks; run until it returns 0.
     * Run it planned per call: a generic plan made from statistics of a drained outbox reads the whole table.
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
     * outbox_message_live_seq_idx} (index-only for counts of live rows; oldest by smallest seq; {@code seq > 0}
     * matches its predicate, V4).
     */
    public static final String BACKLOG = """
            SELECT count(*) FILTER (WHERE b.status = 'PENDING') AS pending,
                   count(*) FILTER (WHERE b.status = 'RETRY_SCHEDULED') AS retry_scheduled,
                   coalesce((SELECT (extract(epoch FROM now() - o.created_at) * 1000)::bigint
                               FROM outbox_message o
                              WHERE o.status IN %1$s AND o.seq > 0
                              ORDER BY o.seq
                              LIMIT 1), 0) AS oldest_age_ms
              FROM outbox_message b
             WHERE b.status IN %1$s AND b.seq > 0
            """.formatted(LIVE);

    /**
     * An upper bound of the live rows, from two index endpoints: the newest {@code seq} minus the oldest live
     * {@code seq}, plus one (0 when nothing is live). Every live row's {@code seq} lies in that range, so the bound
     * is never below the true count; it is far above it only while an old live row (a retry, a key stuck behind a
     * dead head) holds the range open. Index: {@code outbox_message_seq_key} and {@code outbox_message_live_seq_idx}
     * ({@code seq > 0} matches its predicate, V4),
     * one descent each, whatever the backlog: the ingest guard reads it every second, where {@link #BACKLOG} counts
     * every live row, at a cost that grows with the backlog.
     */
    public static final String BACKLOG_BOUND = """
            SELECT coalesce((SELECT max(m.seq) FROM outbox_message m)
                            - (SELECT min(l.seq) FROM outbox_message l WHERE l.status IN %1$s AND l.seq > 0) + 1,
                            0) AS bound
            """.formatted(LIVE);

    // ---- ingest and operator statements

    /**
     * The messages of an ingest statement, one row each with its position {@code ord} (1-based). Parameters
     * (arrays of equal length, except {@code $5}): {@code $1} ids, {@code $2} topics, {@code $3} keys, {@code $4}
     * event types, {@code $5} all payloads concatenated (one {@code bytea}: r2dbc-postgresql has no {@code bytea[]}
     * codec, and this spares base64 both ways), {@code $6} each payload's 1-based start in {@code $5}, {@code $7}
     * its length, {@code $8} content types (null: JSON), {@code $9} headers JSON text (null: empty), {@code $10}
     * correlation ids, {@code $11} causation ids, {@code $12} delays in milliseconds (null: none; see {@code
     * visibleAfter}).
     */
    private static final String INGEST_INPUT = """
            unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $6::int[], $7::int[], $8::text[], $9::text[],
                   $10::text[], $11::text[], $12::bigint[]) WITH ORDINALITY
                AS r(id, topic, message_key, event_type, payload_from, payload_length, content_type, headers,
                     correlation_id, causation_id, delay_ms, ord)
            """;

    /**
     * Whether stored row {@code o} holds the same message as input {@code r}. Neither the delivery time nor the
     * {@code traceparent} header is compared: trace context is not content (a traced client's retry carries a new
     * one, and the service stores its ingest span's).
     */
    private static final String SAME_CONTENT = """
            (o.topic = r.topic AND o.message_key IS NOT DISTINCT FROM r.message_key AND o.event_type = r.event_type
             AND o.payload = substring($5::bytea FROM r.payload_from FOR r.payload_length)
             AND o.content_type = coalesce(r.content_type, 'application/json')
             AND o.headers - 'traceparent' = coalesce(r.headers::jsonb, '{}'::jsonb) - 'traceparent'
             AND o.correlation_id IS NOT DISTINCT FROM r.correlation_id
             AND o.causation_id IS NOT DISTINCT FROM r.causation_id)""";

    /**
     * Ingests a group of messages (one HTTP request's, or several requests' coalesced by the ingest writer) in one
     * autocommit round trip; parameters as {@code INGEST_INPUT} above. Returns one row per message it wrote
     * ({@code ord} null, {@code written} true) and one row per input whose id already existed when the statement
     * began ({@code ord} set, {@code written} false, {@code same_content}). An input with neither (its id was
     * being inserted by a concurrent transaction, or appears twice in the input) is read afterwards with {@link
     * #FIND_FOR_INGEST}, as a new statement that sees what that transaction committed.
     *
     * <p>Key order: the writer locks of all the input's keys ({@link #LOCK_KEY}'s lock, taken in lock-id order so
     * two writers of overlapping key sets never deadlock) are held before any row takes its {@code seq}, and until
     * the commit that makes the rows visible, so a key's rows commit in seq order across all writers. {@code
     * key_lock} calls a volatile function, so PostgreSQL never inlines it, and it aggregates all the lock calls
     * into its one row; the insert's rows, {@code nextval(seq)} included, are computed above the join with that
     * row, so after every lock was granted (SchemaIT checks the plan). Within the statement rows take their seqs
     * in {@code ord} order, so a key's messages keep the order of the request, and of requests in the group.
     *
     * <p>Index: the primary key, one probe per input for {@code existing} and one per inserted row. A repeated id
     * is never an error and never written twice: {@code existing} skips ids committed before the statement
     * began without taking a seq (so a replayed request writes nothing and commits nothing), and {@code ON
     * CONFLICT (id) DO NOTHING} waits for a concurrent inserter of the same id and then does nothing (or inserts,
     * if it rolled back). The deferred trigger (migration V2) sends at most one NOTIFY at commit.
     */
    public static final String INGEST = """
            WITH input AS MATERIALIZED (
                SELECT * FROM %1$s
            ),
            key_lock AS (
                SELECT count(pg_advisory_xact_lock(l.lock_id)) >= 0 AS held
                  FROM (SELECT DISTINCT hashtextextended(i.message_key, 7351) AS lock_id
                          FROM input i
                         WHERE i.message_key IS NOT NULL
                         ORDER BY 1) l
            ),
            existing AS MATERIALIZED (
                SELECT r.ord, o.id, o.seq, o.status, o.version, o.created_at, %2$s AS same_content
                  FROM input r
                  JOIN outbox_message o ON o.id = r.id
            ),
            written AS (
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload, content_type, headers,
                                            correlation_id, causation_id, visible_after)
                SELECT r.id, r.topic, r.message_key, r.event_type,
                       substring($5::bytea FROM r.payload_from FOR r.payload_length),
                       coalesce(r.content_type, 'application/json'), coalesce(r.headers::jsonb, '{}'::jsonb),
                       r.correlation_id, r.causation_id, %3$s
                  FROM input r
                  CROSS JOIN key_lock k
                 WHERE k.held
                   AND NOT EXISTS (SELECT 1 FROM existing e WHERE e.id = r.id)
                 ORDER BY r.ord
                ON CONFLICT (id) DO NOTHING
                RETURNING id, seq, status, version, created_at
            )
            SELECT NULL::bigint AS ord, w.id, w.seq, w.status, w.version, w.created_at, true AS written,
                   true AS same_content
              FROM written w
            UNION ALL
            SELECT e.ord, e.id, e.seq, e.status, e.version, e.created_at, false, e.same_content
              FROM existing e
            """.formatted(INGEST_INPUT, SAME_CONTENT, visibleAfter("now()", "r.delay_ms"));

    /**
     * Reads the stored rows of ingest inputs that {@link #INGEST} neither wrote nor found, and whether each one's
     * content equals the input's; parameters as {@link #INGEST}. Returns {@code ord} and the row for every input
     * whose id exists. Index: the primary key, one probe per input. A new statement, so under READ COMMITTED it
     * sees rows a concurrent ingest committed while {@link #INGEST} waited on them, and rows an earlier occurrence
     * of the same id in the group wrote.
     */
    public static final String FIND_FOR_INGEST = """
            SELECT r.ord, o.id, o.seq, o.status, o.version, o.created_at, %2$s AS same_content
              FROM %1$s
              JOIN outbox_message o ON o.id = r.id
            """.formatted(INGEST_INPUT, SAME_CONTENT);

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

    /** Row state as audit JSON (no payload); {@code %s} is the row alias ({@link AuditSql#ROW_STATE}). */
    private static final String AUDIT_STATE = AuditSql.ROW_STATE;

    /**
     * Bulk replay of dead letters by filter, audited per message, in one statement. Parameters: {@code $1} topic
     * (null: any), {@code $2} key (null: any), {@code $3} text the last error contains (null: any), {@code $4}
     * limit, {@code $5} actor. Returns the replayed ids in seq order.
     *
     * <p>Index: {@code outbox_message_dead_letter_idx} (topic, seq) where DEAD_LETTERED, which holds only dead
     * letters, so the filter scans few rows. Concurrency: {@code FOR NO KEY UPDATE SKIP LOCKED} passes over rows
     * another operator is changing; the UPDATE re-checks the status on the newest version; each replayed row gets
     * its audit row in the same statement, so a row is replayed and audited once or not at all. The UPDATE's status
     * check is wrapped ({@code (...) IS TRUE}) so it does not imply the dead-letter index's predicate: plain, a
     * generic plan expecting one picked row walked that whole index and compared every dead letter with every
     * picked row (GenericPlanIT); wrapped, each picked row is found by primary key.
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
                 WHERE t.id = p.id AND (t.status = 'DEAD_LETTERED') IS TRUE
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
     * <p>The status is written into the text (an enum value, never user text) for the partial indexes: live_seq (its
     * {@code seq > 0} follows from a cursor of 0 or more in a custom plan) or live_key for live statuses, dead_letter
     * or dead_letter_seq (V9) for dead letters, the {@code seq} unique index otherwise. No index holds a topic or key
     * over the history (one would cost every insert): {@code dispatcher.operator.read-timeout} bounds those reads
     * ({@code OperatorReadPlansIT}). A plain read: rows may change while an operator pages; each page is consistent.
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
