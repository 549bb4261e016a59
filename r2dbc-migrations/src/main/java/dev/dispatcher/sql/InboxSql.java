package dev.dispatcher.sql;

/**
 * All statements on {@code inbox_message}. Each names the index it relies on and why it is safe when several
 * instances of one consumer, their processors and operators run at once. The shapes mirror {@link OutboxSql}; rows
 * are keyed by {@code (consumer_name, message_id)} and a delivered row is written {@code COMPLETED}.
 */
public final class InboxSql {

    private InboxSql() {
    }

    /** Live statuses, as a SQL list ({@link LeasedTableSql#LIVE}). */
    private static final String LIVE = LeasedTableSql.LIVE;

    /** A row a worker may claim now ({@link LeasedTableSql#claimable}). */
    private static final String CLAIMABLE = LeasedTableSql.claimable("m");

    /**
     * Stores a batch of received records, skipping those already stored. Parameters (arrays of equal length):
     * {@code $1} consumer name (scalar), {@code $2} message ids, {@code $3} source topics, {@code $4} partitions,
     * {@code $5} offsets, {@code $6} text keys, {@code $7} event types, {@code $8} headers JSON text, {@code $9}
     * payloads in base64, {@code $10} binary keys in base64 (r2dbc-postgresql has no {@code bytea[]} codec), {@code
     * $11} dead-letter reasons, {@code $12} (scalar) whether to take the key locks (a consumer with per-key order). A
     * record with a reason is stored {@code DEAD_LETTERED} with it as {@code last_error} (a poison record: it is kept
     * for the operator and never claimed); a null payload is a value that was not stored (V5). Returns the message ids
     * that were inserted; an id of the input that is not returned was a duplicate (stored before, by this or another
     * instance, or twice in this batch).
     *
     * <p>Order: rows are inserted, and take their {@code seq}s, in (topic, partition, offset) order, so a partition's
     * rows are in offset order within a statement, and a partition's statements follow each other (one consumer
     * instance reads it at a time, and stores one batch after the other). With {@code $12}, the consumer's locks of
     * all the batch's keys (transaction-scoped advisory locks, one per key of a row to handle, taken in lock-id order)
     * are held before any row takes its {@code seq}, and until the commit that makes the rows visible, so a key's rows
     * commit in seq order across all of the consumer's instances, topics and partitions: the per-key claim never sees
     * a key's head appear before rows of the key that are already leased. As in {@code OutboxSql.INGEST}, {@code
     * key_lock} calls a volatile function, so PostgreSQL never inlines it, and aggregates the lock calls into its one
     * row; the inserted rows, {@code nextval(seq)} included, are computed above the join with that row (SchemaIT
     * checks the plan). Without {@code $12} no lock is taken.
     *
     * <p>Index: the primary key {@code (consumer_name, message_id)} decides. Concurrency: two instances inserting
     * the same id at once serialise on the unique index; the second waits for the first and then skips (ON CONFLICT
     * DO NOTHING), so exactly one row exists and exactly one insert reports it. Two batches that overlap (a partition
     * briefly read by two instances during a rebalance) hold the same records at the same positions, so they insert
     * them in one order and wait for each other without deadlocking; and with {@code $12} they share those records'
     * key locks, taken before anything is inserted. One bad value fails the whole statement (nothing of it is
     * written); the intake then stores the batch one record at a time to find it.
     */
    public static final String INSERT = """
            WITH input AS MATERIALIZED (
                SELECT *
                  FROM unnest($2::text[], $3::text[], $4::int[], $5::bigint[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::text[], $11::text[])
                       AS r(message_id, topic, part, off, message_key, event_type, headers, payload, key_bytes, reason)
            ),
            key_lock AS (
                SELECT count(pg_advisory_xact_lock(l.lock_id)) >= 0 AS held
                  FROM (SELECT DISTINCT hashtextextended($1::text || coalesce(':t:' || i.message_key,
                                                                                ':b:' || i.key_bytes), 7353) AS lock_id
                          FROM input i
                         WHERE $12::boolean AND i.reason IS NULL
                           AND (i.message_key IS NOT NULL OR i.key_bytes IS NOT NULL)
                         ORDER BY 1) l
            )
            INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,
                                       message_key, message_key_bytes, event_type, headers, payload, status,
                                       dead_lettered_at, last_error)
            SELECT $1, r.message_id, r.topic, r.part, r.off, r.message_key, decode(r.key_bytes, 'base64'),
                   r.event_type, r.headers::jsonb, decode(r.payload, 'base64'),
                   CASE WHEN r.reason IS NULL THEN 'PENDING' ELSE 'DEAD_LETTERED' END,
                   CASE WHEN r.reason IS NULL THEN NULL ELSE now() END, r.reason
              FROM input r
             CROSS JOIN key_lock k
             WHERE k.held
             ORDER BY r.topic, r.part, r.off
            ON CONFLICT (consumer_name, message_id) DO NOTHING
            RETURNING message_id
            """;

    /** The columns a claim returns ({@code store.ClaimedInboxMessage}), with whether it took over an expired lease. */
    private static final String CLAIM_RETURNING = """
            RETURNING o.consumer_name, o.message_id, o.seq, o.source_topic, o.source_partition, o.source_offset,
                      o.message_key, o.message_key_bytes, o.event_type, o.headers::text AS headers, o.payload,
                      o.status, o.attempts,
                      o.version, o.lease_owner, o.lease_token, o.lease_until, o.created_at,
                      (c.previous_lease_until IS NOT NULL) AS lease_expired
            """;

    /** The lease a claim gives its rows: owner parameter {@code owner}, lease length in ms {@code millis}. */
    private static String claimSet(String owner, String millis) {
        return """
                UPDATE inbox_message o
                   SET lease_owner = %s,
                       lease_token = %s,
                       lease_until = now() + %s::bigint * interval '1 millisecond',
                       attempts = o.attempts + 1,
                       last_attempt_at = now()
                """.formatted(owner, LeasedTableSql.BATCH_TOKEN, millis);
    }

    /**
     * Claims up to {@code $4} rows of consumer {@code $1} in {@code seq} order. Parameters: {@code $1} consumer,
     * {@code $2} owner, {@code $3} lease length in ms, {@code $4} limit.
     *
     * <p>Index: {@code inbox_message_live_idx (consumer_name, seq) WHERE live AND seq > 0} (V6: {@code seq > 0}
     * matches its predicate, which the per-key claim never states). Concurrency: {@code FOR UPDATE SKIP
     * LOCKED} lets processors of one consumer claim disjoint rows without waiting; a row leased by a processor that
     * committed after our snapshot is re-checked on its newest version and dropped. A row whose handler transaction
     * is writing its completion is locked and skipped. Claiming a row whose earlier lease ran out is reported as
     * {@code lease_expired}: workers null {@code lease_until} whenever they end a lease. Does not change
     * {@code version}. Run it with bitmap scans off ({@code SET LOCAL enable_bitmapscan = off}): on a table not
     * analysed since its backlog grew the planner otherwise reads and sorts the whole backlog on every claim.
     *
     * <p>Commit: asynchronous, for the claim's own transaction ({@link LeasedTableSql#ASYNC_CLAIM_COMMIT}).
     */
    public static final String CLAIM = """
            WITH c AS (
                SELECT m.consumer_name, m.message_id, m.lease_until AS previous_lease_until
                  FROM inbox_message m
                 WHERE m.consumer_name = $1
                   AND m.status IN %1$s AND m.seq > 0
                   AND %2$s
                 ORDER BY m.seq
                 LIMIT $4
                   FOR UPDATE SKIP LOCKED
            )
            %3$s  FROM c
             WHERE o.consumer_name = c.consumer_name AND o.message_id = c.message_id AND %4$s
            %5$s""".formatted(LIVE, CLAIMABLE, claimSet("$2", "$3"), LeasedTableSql.ASYNC_CLAIM_COMMIT,
            CLAIM_RETURNING);

    /**
     * Claims up to {@code $3} rows of consumer {@code $5} keeping per-key order ({@code ordering=per-key}): the
     * outbox's per-key claim on this table, generated by {@link PerKeyClaimSql} (shape, concurrency argument there).
     * Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3} limit, {@code $4} key cursor (bytes),
     * {@code $5} consumer, {@code $6} the most rows of one key a claim takes (a handler works a key's run one row at
     * a time, so a claim of runs as long as the limit would keep one worker busy and leave the others idle).
     *
     * <p>A key is its bytes, {@code dispatcher_inbox_key(message_key_bytes, message_key)} (V6): a text key's UTF-8
     * bytes or a binary key's own, so a key that is not text is ordered like any other; rows without a key are
     * unordered. A key's rows are taken in {@code seq} order, the inbox's arrival order: offset order within a
     * partition, the order of storing across topics and partitions (V6). Index: {@code inbox_message_live_key_idx}
     * (consumer_name, key, seq) for the walk over the consumer's keys and each run, {@code
     * inbox_message_live_unkeyed_idx} (consumer_name, seq) for rows without a key.
     */
    public static final String CLAIM_PER_KEY = PerKeyClaimSql.statement(new PerKeyClaimSql.Shape(
            LeasedTableSql.INBOX, alias -> "dispatcher_inbox_key(" + alias + ".message_key_bytes, " + alias
            + ".message_key)",
            alias -> "(" + alias + ".message_key IS NOT NULL OR " + alias + ".message_key_bytes IS NOT NULL)",
            alias -> alias + ".message_key IS NULL AND " + alias + ".message_key_bytes IS NULL",
            claimSet("$1", "$2"), CLAIM_RETURNING, null, "$6"));

    /**
     * Applies a batch of lease transitions of one consumer's rows in one round trip and returns what is needed to
     * classify each: the statement both leased tables share, generated by {@link LeasedTableSql#transition}
     * (parameters, shape and concurrency argument there); {@code $6} is the consumer name, {@code deliver} writes
     * {@code COMPLETED}. Runs in autocommit, or inside a handler's READ COMMITTED transaction (the handler's local
     * writes and the completion commit together). Index: the primary key.
     */
    public static final String TRANSITION = LeasedTableSql.transition(LeasedTableSql.INBOX);

    /** {@link #TRANSITION} for exactly one request, scalar parameters ({@link LeasedTableSql#transitionOne}). */
    public static final String TRANSITION_ONE = LeasedTableSql.transitionOne(LeasedTableSql.INBOX);

    /**
     * Deliver (COMPLETED) of consumer {@code $3}'s rows still held under one batch's token, one guarded UPDATE
     * (parameters and concurrency argument at {@link LeasedTableSql#deliverLeased}). Index: the primary key.
     */
    public static final String DELIVER_LEASED = LeasedTableSql.deliverLeased(LeasedTableSql.INBOX);

    /**
     * {@link #DELIVER_LEASED} for one row, scalar parameters ({@link LeasedTableSql#deliverOne}): an in-process
     * handler's completion, in its transaction. Index: the primary key.
     */
    public static final String DELIVER_ONE = LeasedTableSql.deliverOne(LeasedTableSql.INBOX);

    /**
     * Deletes up to {@code $4} rows of consumer {@code $1} in terminal status {@code $2} that finished more than
     * {@code $3} ms ago; for {@code COMPLETED} rows that is the end of their deduplication window (a record
     * redelivered after it is stored again). Index: {@code inbox_message_created_brin} narrows to old pages (a row
     * finishes after it is created), then the consumer and the finish time are checked per row. {@code SKIP LOCKED}
     * and the bound keep one pass from holding many locks; run until it returns fewer than the bound.
     */
    public static final String DELETE_FINISHED = """
            DELETE FROM inbox_message o
             USING (SELECT d.consumer_name, d.message_id
                      FROM inbox_message d
                     WHERE d.created_at < now() - $3::bigint * interval '1 millisecond'
                       AND d.consumer_name = $1
                       AND d.status = $2
                       AND coalesce(d.completed_at, d.dead_lettered_at) < now() - $3::bigint * interval '1 millisecond'
                     LIMIT $4
                       FOR UPDATE SKIP LOCKED) old
             WHERE o.consumer_name = old.consumer_name AND o.message_id = old.message_id
            """;

    /**
     * Whether consumer {@code $1} has at least {@code $2} live rows; intake pauses while it does. Counts at most
     * {@code $2} entries of {@code inbox_message_live_idx}, so the check costs the bound, not the backlog. The
     * {@code ORDER BY} is that index's order: without it a generic plan (the bound unknown) reads the table from
     * the start instead, completed history first.
     */
    public static final String BACKLOG_AT_LEAST = """
            SELECT count(*) >= $2 AS over
              FROM (SELECT 1
                      FROM inbox_message b
                     WHERE b.consumer_name = $1 AND b.status IN %s AND b.seq > 0
                     ORDER BY b.seq
                     LIMIT $2) live
            """.formatted(LIVE);

    /**
     * Per consumer named in {@code $1} (text array): live rows by status, dead letters, and the age of the oldest
     * live row, for operators. Indexes: {@code inbox_message_live_idx (consumer_name, seq) WHERE live AND seq > 0} for
     * the backlog (a scan of the consumer's live entries only) and {@code inbox_message_dead_letter_idx} (V3) for dead
     * letters, so completed history is never read. A consumer without rows has zeros. A plain read, no locks.
     */
    public static final String CONSUMER_BACKLOGS = """
            SELECT c.name,
                   coalesce(l.pending, 0) AS pending,
                   coalesce(l.retry_scheduled, 0) AS retry_scheduled,
                   coalesce(l.oldest_age_ms, 0) AS oldest_age_ms,
                   (SELECT count(*) FROM inbox_message d
                     WHERE d.consumer_name = c.name AND d.status = 'DEAD_LETTERED') AS dead_lettered
              FROM unnest($1::text[]) AS c(name)
              LEFT JOIN LATERAL (
                   SELECT count(*) FILTER (WHERE b.status = 'PENDING') AS pending,
                          count(*) FILTER (WHERE b.status = 'RETRY_SCHEDULED') AS retry_scheduled,
                          (extract(epoch FROM now() - min(b.created_at)) * 1000)::bigint AS oldest_age_ms
                     FROM inbox_message b
                    WHERE b.consumer_name = c.name AND b.status IN %s AND b.seq > 0) l ON true
            """.formatted(LIVE);

    /**
     * The columns an operator sees of an inbox row ({@code store.InboxEntry}), headers as JSON text; the value only
     * by its size ({@code payload_size}, null when it was not stored), so a page of rows never carries payloads.
     */
    private static final String ENTRY_COLUMNS = """
            consumer_name, message_id, seq, source_topic, source_partition, source_offset, message_key,
            message_key_bytes, event_type, headers::text AS headers, octet_length(payload) AS payload_size, status,
            attempts, visible_after, lease_owner, lease_token, lease_until, version, created_at, last_attempt_at,
            completed_at, dead_lettered_at, last_error
            """;

    /**
     * A page of consumer {@code $1}'s dead letters after seq {@code $2}, in seq order, at most {@code $3}.
     * Index: {@code inbox_message_dead_letter_idx (consumer_name, seq)}, one range scan. A plain read.
     */
    public static final String DEAD_LETTERS_PAGE = "SELECT " + ENTRY_COLUMNS + """
              FROM inbox_message d
             WHERE d.consumer_name = $1 AND d.status = 'DEAD_LETTERED' AND d.seq > $2
             ORDER BY d.seq
             LIMIT $3
            """;

    /**
     * One row of consumer {@code $1} by message id {@code $2}, locked for an operator mutation in the caller's
     * transaction. Index: the primary key. {@code FOR NO KEY UPDATE} waits for a concurrent writer (a handler's
     * completion, a processor's transition, another operator) and then returns its committed version, so the caller
     * decides on the current row; a claim ({@code SKIP LOCKED}) passes over the row meanwhile.
     */
    public static final String FIND_FOR_UPDATE = "SELECT " + ENTRY_COLUMNS + """
              FROM inbox_message
             WHERE consumer_name = $1 AND message_id = $2
               FOR NO KEY UPDATE
            """;

    /**
     * Operator replay of consumer {@code $1}'s message {@code $2} at version {@code $3}: back to {@code PENDING},
     * visible now, attempts reset, lease and finish times cleared, version bumped; {@code last_error} is kept until
     * the next failure, as the outbox's. Index: the primary key. Optimistic: the version guard is re-checked on the
     * newest row version, so a lost race updates nothing (the caller reports a conflict, never retries). Finished
     * rows only, and only those whose value was stored (V5): a row without one stays dead-lettered.
     */
    public static final String REPLAY = """
            UPDATE inbox_message
               SET status = 'PENDING', attempts = 0, visible_after = now(), lease_owner = NULL, lease_token = NULL,
                   lease_until = NULL, completed_at = NULL, dead_lettered_at = NULL, version = version + 1
             WHERE consumer_name = $1 AND message_id = $2 AND version = $3
               AND status IN ('COMPLETED', 'DEAD_LETTERED') AND payload IS NOT NULL
            RETURNING\s""" + ENTRY_COLUMNS;

    /**
     * Bulk replay of consumer {@code $1}'s dead letters by filter, audited per message, in one statement.
     * Parameters: {@code $2} source topic (null: any), {@code $3} text key (null: any), {@code $4} text the last
     * error contains (null: any), {@code $5} limit, {@code $6} actor. Rows whose value was not stored are skipped
     * (never replayable). Returns the replayed message ids in seq order.
     *
     * <p>Index: {@code inbox_message_dead_letter_idx (consumer_name, seq)} where DEAD_LETTERED (V3), which holds
     * only dead letters, so the filter scans few rows. Concurrency, as the outbox's ({@code
     * OutboxSql.REPLAY_DEAD_LETTERS}): {@code FOR NO KEY UPDATE SKIP LOCKED} passes over rows another operator or a
     * worker is changing; the UPDATE re-checks the status on the newest version (wrapped, {@code (...) IS TRUE}, so
     * a generic plan finds each picked row by primary key instead of walking the dead-letter index); each replayed
     * row gets its audit row ({@code queue} inbox, the consumer in {@code detail}) in the same statement, so a row
     * is replayed and audited once or not at all.
     */
    public static final String REPLAY_DEAD_LETTERS = """
            WITH picked AS MATERIALIZED (
                SELECT d.consumer_name, d.message_id, d.seq, %1$s AS before_state
                  FROM inbox_message d
                 WHERE d.consumer_name = $1 AND d.status = 'DEAD_LETTERED'
                   AND d.payload IS NOT NULL
                   AND ($2::text IS NULL OR d.source_topic = $2)
                   AND ($3::text IS NULL OR d.message_key = $3)
                   AND ($4::text IS NULL OR strpos(d.last_error, $4) > 0)
                 ORDER BY d.seq
                 LIMIT $5
                   FOR NO KEY UPDATE SKIP LOCKED
            ),
            upd AS (
                UPDATE inbox_message t
                   SET status = 'PENDING', attempts = 0, visible_after = now(), lease_owner = NULL,
                       lease_token = NULL, lease_until = NULL, completed_at = NULL, dead_lettered_at = NULL,
                       version = t.version + 1
                  FROM picked p
                 WHERE t.consumer_name = p.consumer_name AND t.message_id = p.message_id
                   AND (t.status = 'DEAD_LETTERED') IS TRUE
                RETURNING t.message_id, p.seq, p.before_state, %2$s AS after_state
            ),
            audited AS (
                INSERT INTO dispatch_audit (actor, action, queue, message_id, detail, before_state, after_state)
                SELECT $6, '%3$s', '%4$s', u.message_id, jsonb_build_object('bulk', true, 'consumer', $1::text),
                       u.before_state, u.after_state
                  FROM upd u
                RETURNING message_id
            )
            SELECT u.message_id FROM upd u ORDER BY u.seq
            """.formatted(AuditSql.ROW_STATE.formatted("d"), AuditSql.ROW_STATE.formatted("t"),
            AuditSql.Action.REPLAY.sql(), AuditSql.QUEUE_INBOX);

    /**
     * Backlog of consumer {@code $1} by status and the age of its oldest live row, for the depth gauges. Index:
     * {@code inbox_message_live_idx} (consumer_name, seq): a scan of the consumer's live entries only, oldest first.
     */
    public static final String BACKLOG = """
            SELECT count(*) FILTER (WHERE b.status = 'PENDING') AS pending,
                   count(*) FILTER (WHERE b.status = 'RETRY_SCHEDULED') AS retry_scheduled,
                   coalesce((extract(epoch FROM now() - min(b.created_at)) * 1000)::bigint, 0) AS oldest_age_ms
              FROM inbox_message b
             WHERE b.consumer_name = $1 AND b.status IN %s AND b.seq > 0
            """.formatted(LIVE);
}
