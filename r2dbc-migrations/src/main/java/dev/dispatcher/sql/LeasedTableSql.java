package dev.dispatcher.sql;

import java.util.Objects;

/**
 * What the two leased tables ({@code outbox_message} and {@code inbox_message}) share: the live statuses, the
 * claimable condition and the one classified transition statement, generated from a {@link Table} description so
 * both queues run the same SQL.
 */
public final class LeasedTableSql {

    private LeasedTableSql() {
    }

    /** Live statuses, as a SQL list: a row a worker may lease. */
    public static final String LIVE = "('PENDING', 'RETRY_SCHEDULED')";

    /**
     * A row a worker may claim now, for the row alias {@code alias}: visible and not under a live lease (an expired
     * lease may be taken over). Database time decides, so instances with skewed clocks agree.
     */
    public static String claimable(String alias) {
        return "%1$s.visible_after <= now() AND (%1$s.lease_until IS NULL OR %1$s.lease_until < now())"
                .formatted(alias);
    }

    /**
     * The lease token a claim statement gives every row it leases: one fresh token per claimed batch, not per row.
     * An uncorrelated scalar subquery is an InitPlan, evaluated once per execution although the function is
     * volatile. One token per batch is what lets {@link #deliverLeased} finish a whole batch with one guarded
     * UPDATE; the token still identifies exactly one lease (every claim draws a new one), which is all the
     * classification needs.
     */
    public static final String BATCH_TOKEN = "(SELECT gen_random_uuid())";

    /**
     * A condition a claim statement's UPDATE adds to its {@code WHERE}: it sets {@code synchronous_commit} off for
     * the claim's own transaction (an uncorrelated InitPlan, evaluated once; {@code is_local}, so the setting ends
     * with that transaction) and is always true. The claim's commit then returns without waiting for its WAL to
     * reach the disk; the lease is visible to every other session at once, as with any commit, and the WAL writer
     * flushes it within a few hundred milliseconds, or sooner when any later synchronous commit (this worker's own
     * Deliver among them) flushes the log up to itself.
     *
     * <p>Why that is safe: only a crash of PostgreSQL itself in that window can lose a claim, and then the rows are
     * as they were before it (unleased, {@code attempts} one lower). The worker may have published them meanwhile;
     * its transition then finds the lease token not its own and reports {@code StaleLease} or {@code Missing}, never
     * {@code Applied}, and the rows are claimed and published again: a duplicate, which at-least-once delivery
     * allows, exactly as after a crash between publishing and Deliver. A crash of the worker, or a terminated
     * connection, loses nothing (the server commits and flushes the claim itself). Every transition that reports
     * {@code Applied} stays a synchronous commit.
     *
     * <p>Why: every message waits for its claim, so the claim's flush would be on every message's path to Kafka
     * (docs/measurements.md, "One hand-off per batch, claims without a flush wait").
     */
    public static final String ASYNC_CLAIM_COMMIT = "(SELECT set_config('synchronous_commit', 'off', true)) = 'off'";

    /**
     * The rows of {@code locked} (columns {@code id}, {@code seq}, {@code previous_lease_until}, {@code bytes}) a claim
     * keeps within a byte budget, the parameter {@code budgetParameter}: in {@code seq} order, every row while the
     * payload bytes up to and including it stay within the budget, and the first row in any case, so a row larger than
     * the budget still goes, alone. What is kept is a prefix in {@code seq} order, so each key's run keeps a prefix of
     * its rows: contiguous from its head, as the per-key claim requires. {@code bytes} is {@code
     * octet_length(payload)}, which reads the stored length (for a TOASTed payload, its pointer's raw size) and never
     * decompresses or fetches the value. The running sum is one window over at most the claim's limit of rows it has
     * already read (the unordered claim sorts its locked rows again for it: LockRows promises no order). The rows cut
     * off stay locked only until the claim commits.
     */
    static String withinBudget(String locked, String budgetParameter) {
        return """
                SELECT b.id, b.previous_lease_until
                  FROM (SELECT l.id, l.previous_lease_until, sum(l.bytes) OVER w AS running, row_number() OVER w AS n
                          FROM %1$s l
                        WINDOW w AS (ORDER BY l.seq ROWS UNBOUNDED PRECEDING)) b
                 WHERE b.running <= %2$s OR b.n = 1
                """.formatted(locked, budgetParameter);
    }

    /**
     * The kinds of lease transition, with the value the {@link #transition} statement switches on. One place for
     * these values: callers map their transition types to a kind, never a metric tag or a free string.
     */
    public enum Kind {
        DELIVER("deliver"),
        RETRY("retry"),
        DEAD_LETTER("dead_letter"),
        RENEW("renew"),
        RELEASE("release");

        private final String sql;

        Kind(String sql) {
            this.sql = sql;
        }

        /** The value bound in the kinds array. */
        public String sql() {
            return sql;
        }

        private String literal() {
            return "'" + sql + "'";
        }
    }

    /**
     * A leased table as the transition statement needs it.
     *
     * @param name the table
     * @param idColumn the message id column
     * @param idType the SQL type of the ids array ({@code uuid} or {@code text})
     * @param scopeColumn the column that, with the id, makes the primary key ({@code consumer_name}), or null
     * @param successStatus what {@code deliver} writes ({@code DELIVERED} or {@code COMPLETED})
     * @param successAtColumn the timestamp {@code deliver} sets ({@code delivered_at} or {@code completed_at})
     */
    public record Table(String name, String idColumn, String idType, String scopeColumn, String successStatus,
            String successAtColumn) {

        public Table {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(idColumn, "idColumn");
            Objects.requireNonNull(idType, "idType");
            Objects.requireNonNull(successStatus, "successStatus");
            Objects.requireNonNull(successAtColumn, "successAtColumn");
        }

        /** The scope condition on alias {@code a}, or nothing for a table without a scope column. */
        String scoped(String a) {
            return scopeColumn == null ? "" : " AND " + a + "." + scopeColumn + " = $6";
        }
    }

    /**
     * What both transition forms return besides the id, for the classifier: the row in the statement's snapshot
     * ({@code snap_*}), as locked ({@code cur_*}), as written ({@code upd_*}), and the statement's time.
     */
    private static final String CLASSIFIED_COLUMNS = """
                   snap.id IS NOT NULL AS snap_found, snap.status AS snap_status, snap.lease_token AS snap_token,
                   snap.lease_until AS snap_until, snap.version AS snap_version, snap.attempts AS snap_attempts,
                   cur.id IS NOT NULL AS cur_found, cur.status AS cur_status, cur.lease_token AS cur_token,
                   cur.lease_until AS cur_until, cur.version AS cur_version, cur.attempts AS cur_attempts,
                   upd.id IS NOT NULL AS upd_found, upd.status AS upd_status, upd.lease_token AS upd_token,
                   upd.lease_until AS upd_until, upd.version AS upd_version, upd.attempts AS upd_attempts,
                   statement_timestamp() AS db_now
            """;

    /**
     * {@link #CLASSIFIED_COLUMNS} of the array form, from its views merged into one grouped row set {@code v} per
     * input id ({@code src} 1 snapshot, 2 locked, 3 written; each view has at most one row per id, so each
     * aggregate picks that row's value). A grouping is hashed or sorted whatever the planner expects of the row
     * counts; a join of the views was planned as a nested loop over the written rows, quadratic in the batch (see
     * {@link #transition}). {@code uuid} has no {@code min}, hence the array for the token.
     */
    private static final String MERGED_COLUMNS = merged("snap", 1) + merged("cur", 2) + merged("upd", 3)
            + "       statement_timestamp() AS db_now\n";

    private static String merged(String view, int src) {
        String filter = " FILTER (WHERE v.src = " + src + ")";
        String as = " AS " + view + "_";
        return "       bool_or(v.src = " + src + ")" + as + "found, min(v.status)" + filter + as + "status,\n"
                + "       (array_agg(v.lease_token)" + filter + ")[1]" + as + "token,\n"
                + "       min(v.lease_until)" + filter + as + "until, min(v.version)" + filter + as + "version,\n"
                + "       min(v.attempts)" + filter + as + "attempts,\n";
    }

    /** {@code outbox_message}: uuid ids, no scope, {@code DELIVERED}. */
    public static final Table OUTBOX = new Table("outbox_message", "id", "uuid", null, "DELIVERED", "delivered_at");

    /** {@code inbox_message}: text ids scoped by {@code consumer_name}, {@code COMPLETED}. */
    public static final Table INBOX = new Table("inbox_message", "message_id", "text", "consumer_name", "COMPLETED",
            "completed_at");

    /**
     * Applies a batch of lease transitions in one round trip and returns what is needed to classify each.
     * Parameters (arrays of equal length): {@code $1} ids, {@code $2} our lease tokens, {@code $3} kinds
     * ({@link Kind#sql()}), {@code $4} milliseconds (retry delay, renewal length or release delay; 0 otherwise),
     * {@code $5} errors (null where none); for a scoped table {@code $6} the scope (the consumer name). Returns one row per distinct
     * input id, in first-occurrence order, with {@code id}, the {@code snap_*}, {@code cur_*} and {@code upd_*}
     * views and {@code db_now}.
     *
     * <p>Shape (docs/reference-queue.md, "Transitions and outcomes"): inputs are de-duplicated (first occurrence wins) and carried with their
     * ordinal; {@code cur} locks the current rows in id order ({@code FOR NO KEY UPDATE} waits for a concurrent
     * writer, then yields its committed version, or nothing if it deleted the row), so two batches never deadlock;
     * {@code cur} and the UPDATE are fed by their own materialised unnest of the parameters ({@code req}; one input
     * CTE feeding both the snapshot read and the UPDATE was seen to return a re-checked row twice on PG 18.1); the
     * UPDATE joins the materialised {@code cur} to the table by primary key, and its guard (our token, lease not
     * ended, live status) is on the target row's own columns, which PostgreSQL re-checks on the newest version;
     * {@code snap} reads the rows as the statement's snapshot sees them, only for the inputs the UPDATE did not
     * write (the classifier needs it only there), so an all-applied batch costs no snapshot probes. Not a TID join
     * from {@code cur}: a row locked after a concurrent update yields the {@code ctid} of the version the scan saw,
     * not of the one it locked, so the UPDATE would miss it (the contract suite's own-renewal race catches that).
     * The three views are merged per input by grouping ({@link #MERGED_COLUMNS}), not joined: a generic plan
     * expects ten input rows and one written row, and joined the written rows as the inner side of a nested loop,
     * comparing every input with every written row.
     *
     * <p>Lease-ending transitions null {@code lease_until} and keep {@code lease_token}, so terminal rows keep the
     * token of the lease that finished them and a retry after a lost commit acknowledgement is recognised as our own
     * write. Deliver, retry and dead-letter change the status and bump {@code version}; renew and release do not.
     * Release gives the attempt back; a release with a delay (milliseconds above 0) also moves {@code visible_after}
     * that far past the statement's time, and a release with an error keeps it as {@code last_error} (a plain
     * release leaves both alone), so rows of an unavailable topic are neither claimed again at once nor left
     * without a cause.
     *
     * <p>Clock: {@code statement_timestamp()}, not {@code now()}: the inbox writes a completion inside a handler's
     * transaction, where {@code now()} is the time the transaction began; in autocommit the two are the same. Index:
     * the primary key. Runs in autocommit, or inside a READ COMMITTED transaction (under REPEATABLE READ PostgreSQL
     * raises 40001 instead of re-checking the guard on the newest row version).
     */
    public static String transition(Table t) {
        String id = t.idColumn();
        return """
                WITH input AS (
                    SELECT DISTINCT ON (i.id) i.id, i.ord
                      FROM unnest($1::%2$s[]) WITH ORDINALITY AS i(id, ord)
                     ORDER BY i.id, i.ord
                ),
                req AS MATERIALIZED (
                    SELECT DISTINCT ON (x.id) x.id, x.token, x.kind, x.millis, x.error
                      FROM unnest($1::%2$s[], $2::uuid[], $3::text[], $4::bigint[], $5::text[])
                           WITH ORDINALITY AS x(id, token, kind, millis, error, ord)
                     ORDER BY x.id, x.ord
                ),
                cur AS MATERIALIZED (
                    SELECT k.%3$s AS id, k.status, k.lease_token, k.lease_until, k.version, k.attempts,
                           r.token AS req_token, r.kind, r.millis, r.error
                      FROM req r
                      JOIN %1$s k ON k.%3$s = r.id%4$s
                     ORDER BY k.%3$s
                       FOR NO KEY UPDATE OF k
                ),
                upd AS (
                    UPDATE %1$s t
                       SET status = CASE c.kind WHEN %7$s THEN '%8$s'
                                                WHEN %9$s THEN 'RETRY_SCHEDULED'
                                                WHEN %10$s THEN 'DEAD_LETTERED'
                                                ELSE t.status END,
                           version = CASE WHEN c.kind IN (%7$s, %9$s, %10$s) THEN t.version + 1
                                          ELSE t.version END,
                           attempts = CASE WHEN c.kind = %12$s THEN greatest(t.attempts - 1, 0) ELSE t.attempts END,
                           lease_until = CASE WHEN c.kind = %11$s
                                              THEN statement_timestamp() + c.millis * interval '1 millisecond'
                                              ELSE NULL END,
                           visible_after = CASE WHEN c.kind = %9$s OR (c.kind = %12$s AND c.millis > 0)
                                                THEN statement_timestamp() + c.millis * interval '1 millisecond'
                                                ELSE t.visible_after END,
                           %13$s = CASE WHEN c.kind = %7$s THEN statement_timestamp() ELSE t.%13$s END,
                           dead_lettered_at = CASE WHEN c.kind = %10$s THEN statement_timestamp()
                                                   ELSE t.dead_lettered_at END,
                           last_error = CASE WHEN c.kind IN (%9$s, %10$s) THEN c.error
                                             WHEN c.kind = %12$s THEN coalesce(c.error, t.last_error)
                                             ELSE t.last_error END
                      FROM cur c
                     WHERE t.%3$s = c.id%5$s
                       -- The guard, wrapped so the planner cannot estimate it from column statistics: with stale
                       -- statistics (no leases when last analysed) it would otherwise expect one row, scan the table
                       -- and loop over cur for each row; this keeps the plan a primary-key probe per cur row.
                       AND (t.lease_token = c.req_token AND t.lease_until IS NOT NULL AND t.status IN %6$s) IS TRUE
                    RETURNING t.%3$s AS id, t.status, t.lease_token, t.lease_until, t.version, t.attempts
                ),
                -- The snapshot view only for inputs the UPDATE did not write: a written row is Applied whatever the
                -- snapshot showed. Every part of one statement reads the same snapshot, so reading after upd still
                -- sees the rows as they were when the statement began.
                snap AS (
                    SELECT s.%3$s AS id, s.status, s.lease_token, s.lease_until, s.version, s.attempts
                      FROM %1$s s
                     WHERE s.%3$s IN (SELECT n.id FROM input n EXCEPT SELECT w.id FROM upd w)%14$s
                )
                SELECT v.id,
                %15$s  FROM (SELECT i.id, i.ord, 0 AS src, NULL::text AS status, NULL::uuid AS lease_token,
                               NULL::timestamptz AS lease_until, NULL::bigint AS version, NULL::int AS attempts
                          FROM input i
                        UNION ALL
                        SELECT snap.id, NULL, 1, snap.status, snap.lease_token, snap.lease_until, snap.version,
                               snap.attempts
                          FROM snap
                        UNION ALL
                        SELECT cur.id, NULL, 2, cur.status, cur.lease_token, cur.lease_until, cur.version,
                               cur.attempts
                          FROM cur
                        UNION ALL
                        SELECT upd.id, NULL, 3, upd.status, upd.lease_token, upd.lease_until, upd.version,
                               upd.attempts
                          FROM upd) v
                 GROUP BY v.id
                 ORDER BY min(v.ord)
                """.formatted(t.name(), t.idType(), id, t.scoped("k"), t.scoped("t"), LIVE,
                Kind.DELIVER.literal(), t.successStatus(), Kind.RETRY.literal(), Kind.DEAD_LETTER.literal(),
                Kind.RENEW.literal(), Kind.RELEASE.literal(), t.successAtColumn(), t.scoped("s"), MERGED_COLUMNS);
    }

    /**
     * The fast path of {@code Deliver}: finishes the rows of {@code $1} (array of ids) still held under the one
     * lease token {@code $2} (one claimed batch's) with one guarded UPDATE, the statement PostgreSQL needs at least
     * for this work; for a scoped table {@code $3} is the scope. Returns one row per input id it did <em>not</em>
     * write, with {@code id}, {@code found} (whether the row existed in the statement's snapshot) and, when found,
     * the row as that snapshot saw it ({@code status}, {@code lease_token}, {@code lease_until}, {@code version},
     * {@code attempts}), and {@code db_now}. An input id not returned was written: a batch whose rows were all
     * published returns nothing, so neither the server nor the driver formats, sends or decodes a row per message.
     *
     * <p>What a written row holds follows from the guard: it was live and held under {@code $2}, so since the
     * claim that leased it nobody else wrote it (operator mutations clear the token, a new claim replaces it, and
     * a lease's own transitions other than renewal end it), so its version and attempts are still the claim's, and
     * the UPDATE made it the success status with {@code version + 1} and no {@code lease_until}, keeping the token.
     * Callers derive that state from their lease snapshot ({@code LeasedMessage.afterDeliver}); the contract suite
     * reads each such row back through another connection and compares.
     *
     * <p>The guard is the one {@link #transition} writes under (our token, lease not ended, live status), on the
     * target row's own columns: under READ COMMITTED PostgreSQL re-checks it on the newest row version after
     * waiting for a concurrent writer, so a row re-leased, finished or deleted by anyone else is never written here.
     * Rows not written are the exception (lost leases, operator mutations, deletions): the caller classifies them
     * with {@link #transition}, passing this statement's snapshot view and time, so a writer that committed while
     * this statement waited is still reported as {@code ConcurrencyLost}, exactly as if {@link #transition} alone
     * had run. What it saves: the classified statement first locks every row ({@code FOR NO KEY UPDATE}, a WAL
     * record per row) and then updates it; here each row is written once. The snapshot probes run only for inputs
     * not written, so an all-delivered batch costs none.
     *
     * <p>Lock order: the rows are locked in the order the plan visits them (the primary key index with the sorted
     * array, or heap order), not necessarily id order. Competing multi-row writers of the same rows are rare (only
     * after a lease ran out and another worker took the row); a deadlock between them is reported by PostgreSQL
     * (40P01), which the callers retry as transient, and nothing is written by the aborted statement. Index: the
     * primary key; the guard is wrapped ({@code (...) IS TRUE}) as in {@link #transition}, because in its plain form it
     * implies the live partial index's predicate and a plan may then scan the scope's whole live backlog. Clock: {@code
     * statement_timestamp()}, as {@link #transition}.
     *
     * <p>The inputs not written are found with {@code EXCEPT} (a hashed set difference, one pass over each side)
     * and only then joined to the table, never with {@code NOT EXISTS (SELECT 1 FROM upd ...)}, which the planner
     * makes a nested loop comparing every input with every written row. The ids of one batch are distinct, so the
     * set difference drops nothing the caller needs.
     */
    public static String deliverLeased(Table t) {
        return fastDeliver(t, "= ANY($1::%2$s[])",
                "unnest($1::%2$s[]) AS i(id) EXCEPT SELECT w.id FROM upd w");
    }

    /**
     * {@link #deliverLeased} for exactly one id, with scalar parameters: {@code $1} id, {@code $2} our lease token,
     * and for a scoped table {@code $3} the scope. Returns nothing when it wrote the row, else one row as {@link
     * #deliverLeased} does. Same guard, index, clock and concurrency argument; no arrays, so a generic plan (an
     * inbox handler's transaction caches plans) is the primary key lookup too, and the short text is cheap for the
     * driver to parse on every message.
     */
    public static String deliverOne(Table t) {
        return fastDeliver(t, "= $1::%2$s", "(VALUES ($1::%2$s)) AS i(id) WHERE NOT EXISTS (SELECT 1 FROM upd)");
    }

    /**
     * The fast Deliver statement: the guarded UPDATE, then the inputs it did not write as the statement's snapshot
     * saw them (every part of one statement reads the same snapshot, so after {@code upd} the snapshot still shows
     * the rows as they were when the statement began). {@code ids} is the UPDATE's condition on the id column and
     * {@code notWritten} the source of the inputs not written, as {@code i(id)} (both may use {@code %2$s}, the id
     * type).
     */
    private static String fastDeliver(Table t, String ids, String notWritten) {
        String scope = t.scopeColumn() == null ? "" : " AND %s." + t.scopeColumn() + " = $3";
        return """
                WITH upd AS (
                    UPDATE %1$s t
                       SET status = '%4$s', version = t.version + 1, lease_until = NULL, %5$s = statement_timestamp()
                     WHERE t.%3$s IDS%6$s
                       AND (t.lease_token = $2::uuid AND t.lease_until IS NOT NULL AND t.status IN %8$s) IS TRUE
                    RETURNING t.%3$s AS id
                )
                SELECT n.id, s.%3$s IS NOT NULL AS found, s.status, s.lease_token, s.lease_until, s.version,
                       s.attempts, statement_timestamp() AS db_now
                  FROM (SELECT i.id FROM NOT_WRITTEN) n
                  LEFT JOIN %1$s s ON s.%3$s = n.id%7$s
                """.replace("IDS", ids).replace("NOT_WRITTEN", notWritten)
                .formatted(t.name(), t.idType(), t.idColumn(), t.successStatus(), t.successAtColumn(),
                        scope.formatted("t"), scope.formatted("s"), LIVE);
    }

    /**
     * {@link #transition} for exactly one request, with scalar parameters: {@code $1} id, {@code $2} our lease
     * token, {@code $3} kind, {@code $4} milliseconds, {@code $5} error (null where none), and for a scoped table
     * {@code $6} the scope. Returns the same columns as {@link #transition}, one row.
     *
     * <p>The same classification in the same one round trip: {@code snap} reads the row in the statement's snapshot
     * (every part of a statement shares it, so reading it beside the UPDATE still sees the row as it was when the
     * statement began), {@code cur} locks the current row ({@code FOR NO KEY UPDATE}: waits for a concurrent writer,
     * then yields its committed version, or nothing if it deleted the row), and the UPDATE joins {@code cur} by primary
     * key with the guard on the target row's own columns. Why a second form: without arrays, ordinals and
     * de-duplication the planner has little to do, and an inbox handler writes one completion per message in its own
     * transaction.
     */
    public static String transitionOne(Table t) {
        String id = t.idColumn();
        return """
                WITH snap AS (
                    SELECT s.%3$s AS id, s.status, s.lease_token, s.lease_until, s.version, s.attempts
                      FROM %1$s s
                     WHERE s.%3$s = $1::%2$s%14$s
                ),
                cur AS MATERIALIZED (
                    SELECT k.%3$s AS id, k.status, k.lease_token, k.lease_until, k.version, k.attempts
                      FROM %1$s k
                     WHERE k.%3$s = $1::%2$s%4$s
                       FOR NO KEY UPDATE
                ),
                upd AS (
                    UPDATE %1$s t
                       SET status = CASE $3::text WHEN %7$s THEN '%8$s'
                                                  WHEN %9$s THEN 'RETRY_SCHEDULED'
                                                  WHEN %10$s THEN 'DEAD_LETTERED'
                                                  ELSE t.status END,
                           version = CASE WHEN $3::text IN (%7$s, %9$s, %10$s) THEN t.version + 1
                                          ELSE t.version END,
                           attempts = CASE WHEN $3::text = %12$s THEN greatest(t.attempts - 1, 0)
                                           ELSE t.attempts END,
                           lease_until = CASE WHEN $3::text = %11$s
                                              THEN statement_timestamp() + $4::bigint * interval '1 millisecond'
                                              ELSE NULL END,
                           visible_after = CASE WHEN $3::text = %9$s OR ($3::text = %12$s AND $4::bigint > 0)
                                                THEN statement_timestamp() + $4::bigint * interval '1 millisecond'
                                                ELSE t.visible_after END,
                           %13$s = CASE WHEN $3::text = %7$s THEN statement_timestamp() ELSE t.%13$s END,
                           dead_lettered_at = CASE WHEN $3::text = %10$s THEN statement_timestamp()
                                                   ELSE t.dead_lettered_at END,
                           last_error = CASE WHEN $3::text IN (%9$s, %10$s) THEN $5::text
                                             WHEN $3::text = %12$s THEN coalesce($5::text, t.last_error)
                                             ELSE t.last_error END
                      FROM cur c
                     WHERE t.%3$s = c.id%5$s
                       AND (t.lease_token = $2::uuid AND t.lease_until IS NOT NULL AND t.status IN %6$s) IS TRUE
                    RETURNING t.%3$s AS id, t.status, t.lease_token, t.lease_until, t.version, t.attempts
                )
                SELECT $1::%2$s AS id,
                %15$s  FROM (VALUES (1)) one(x)
                  LEFT JOIN snap ON true
                  LEFT JOIN cur ON true
                  LEFT JOIN upd ON true
                """.formatted(t.name(), t.idType(), id, t.scoped("k"), t.scoped("t"), LIVE,
                Kind.DELIVER.literal(), t.successStatus(), Kind.RETRY.literal(), Kind.DEAD_LETTER.literal(),
                Kind.RENEW.literal(), Kind.RELEASE.literal(), t.successAtColumn(), t.scoped("s"), CLASSIFIED_COLUMNS);
    }
}
