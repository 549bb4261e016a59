package dev.dispatcher.sql;

import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The per-key claim ({@code ordering=per-key}), one template for both leased tables: {@link OutboxSql#CLAIM_PER_KEY}
 * and {@link InboxSql#CLAIM_PER_KEY} are generated here from a {@link Shape}, so the two queues run the same walk,
 * the same run cut and the same lock step. Parameters: {@code $1} owner, {@code $2} lease length in ms, {@code $3}
 * limit, {@code $4} key cursor (the walk starts after it and wraps around, so every key with backlog is reached),
 * and for a scoped table {@code $5} the scope (the inbox's consumer name); a shape may cap a key's run below the
 * limit ({@link Shape#runLimit}).
 *
 * <p>A key's head is its first live row by {@code seq}. Only a key whose head is claimable is taken, and then a
 * contiguous run from the head (stopping at the first row not yet visible, leased, or locked by another claim), so
 * a key is under at most one lease at a time and its rows are handed on in seq order. Rows without a key are
 * unordered and taken by seq. A row that waits to be retried ({@code RETRY_SCHEDULED}, not visible yet) is its key's
 * head until it finishes, so its key waits; a dead-lettered head is no longer live, and its key moves on.
 *
 * <p>Index: the table's live key index (scope, key, seq) for a loose index scan over distinct keys (one descent per
 * key, never a scan of a hot key's tail) and for each run; the live unkeyed index for rows without a key. The walk
 * stops as soon as enough rows are found, so a claim costs about the rows it takes plus the keys it passes that are
 * blocked (leased or waiting to retry): bounded by the in-flight leases, not by the backlog. It never says {@code
 * seq > 0}, so it cannot use the outbox's live seq index (V4), which on statistics showing few live rows the planner
 * would otherwise pick, with a sort, reading every entry of rows delivered since the last vacuum.
 *
 * <p>Concurrency: each open head's run is locked as soon as it is found, {@code FOR UPDATE SKIP LOCKED}, before the
 * walk goes on to the next key, and re-checked on its newest version; the run is kept up to its first row that could
 * not be locked, so when two workers race for a key, the one that locked the head gets the run and the other gets
 * none of it and goes on to the next open key: a claim does not come back empty because another claim holds the
 * first keys it meets. Rows
 * without a key are locked as they are read, like the unordered claim's; where some of the backlog has no key, a
 * run is locked before the rows are merged by seq with those rows, and part of it may stay unclaimed.
 *
 * <p>The lock step finds a run's rows by the {@code ctid}s the walk read (a TID scan, no index descent per row).
 * Safe: the {@code ctid} is that of the version the statement's snapshot read (its space cannot be reclaimed while
 * the snapshot lives); locking a version a concurrent writer has since replaced follows the update chain and
 * re-checks the conditions on the newest version. Where the run is cut: a locked row is kept when its position in
 * the run (its {@code seq}'s place among the run's, {@code width_bucket}, a binary search) equals its position among
 * the locked rows, that is, when every row before it was locked too. Rows locked but not kept (after a cut, or past
 * the limit) stay locked only until the claim commits. The UPDATE joins by primary key, never by that {@code ctid}
 * (see {@link OutboxSql#CLAIM_UNORDERED}). No join of the locked rows with the picked ones: on statistics of a
 * drained outbox such a join is planned as a nested loop comparing every locked row with every picked one, which a
 * cached generic plan keeps for claims of hundreds of rows ({@code GenericPlanIT}). The figures behind these
 * choices: docs/measurements.md, "Moved from the README and javadoc".
 *
 * <p>Why a key's rows are in seq order when they commit: writers of one key serialise on a transaction-scoped
 * advisory lock taken before any of their rows takes a {@code seq} (the outbox's {@code LOCK_KEY}, the inbox's
 * per-key intake), so a head never appears before a key's rows that are already leased.
 *
 * <p>Commit: asynchronous, for the claim's own transaction ({@link LeasedTableSql#ASYNC_CLAIM_COMMIT}).
 */
final class PerKeyClaimSql {

    private PerKeyClaimSql() {
    }

    /**
     * What the per-key claim needs to know of a leased table.
     *
     * @param table the table: its name, id column and scope column ({@code $5} when there is one)
     * @param key the ordering key of a row alias: a column, or the expression the table's live key index holds
     * @param keyed the condition that a row alias has a key: the predicate of the table's live key index
     * @param unkeyed the condition that a row alias has no key: the predicate of the table's live unkeyed index
     * @param set the {@code UPDATE <table> o SET ...} that leases the claimed rows
     * @param returning the {@code RETURNING} of the claimed rows (aliases {@code o}, and {@code c} with {@code
     *     previous_lease_until})
     * @param budget the parameter holding the claim's payload byte budget ({@link LeasedTableSql#withinBudget}), or
     *     null for a claim limited by rows alone
     * @param runLimit the parameter holding the most rows one key's run may have in a claim: {@code $3} (the
     *     claim's limit) where a run is handed on as one (the relay publishes it pipelined), a parameter of its own
     *     where a run is worked one row at a time (the inbox's handler), so that one claim spans enough keys to keep
     *     the workers busy
     * @param unitColumn the column that comes before the key in the unit of order, or null when the unit is the key
     *     alone: the outbox's {@code topic} under {@code ordering=per-key}, where a key's rows are ordered within
     *     each topic, and the walk, its cursor and each run go by {@code (topic, key)} on the index {@code
     *     (topic, message_key, seq)}
     * @param unitCursor the parameter holding the cursor's value of {@code unitColumn} (the walk starts after
     *     {@code (unitCursor, $4)}), or null without a unit column
     */
    record Shape(LeasedTableSql.Table table, UnaryOperator<String> key, UnaryOperator<String> keyed,
            UnaryOperator<String> unkeyed, String set, String returning, String budget, String runLimit,
            String unitColumn, String unitCursor) {

        /** A shape whose unit of order is the key alone. */
        Shape(LeasedTableSql.Table table, UnaryOperator<String> key, UnaryOperator<String> keyed,
                UnaryOperator<String> unkeyed, String set, String returning, String budget, String runLimit) {
            this(table, key, keyed, unkeyed, set, returning, budget, runLimit, null, null);
        }

        Shape {
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(keyed, "keyed");
            Objects.requireNonNull(unkeyed, "unkeyed");
            Objects.requireNonNull(set, "set");
            Objects.requireNonNull(returning, "returning");
            Objects.requireNonNull(runLimit, "runLimit");
            if ((unitColumn == null) != (unitCursor == null)) {
                throw new IllegalArgumentException("a unit column needs its cursor parameter, and only it");
            }
        }

        /** {@code a.<unit column>, } where the unit has a column before the key, else nothing. */
        String unit(String a) {
            return unitColumn == null ? "" : a + "." + unitColumn + ", ";
        }

        /** The walk's cursor as the right side of a comparison with a unit: {@code $4}, or {@code <unitCursor>, $4}. */
        String cursor() {
            return unitColumn == null ? "$4" : unitCursor + ", $4";
        }

        /**
         * Alias {@code a}'s unit compared with {@code op} to {@code right} (a unit's values, as {@link #cursor}): the
         * key alone, or a row comparison {@code (a.topic, a.key) op (right)}, which a btree index on {@code (topic,
         * key, ...)} answers as one range, as it does the key's.
         */
        String compare(String a, String op, String right) {
            return unitColumn == null ? key.apply(a) + " " + op + " " + right
                    : "(" + unit(a) + key.apply(a) + ") " + op + " (" + right + ")";
        }

        /** Alias {@code a} in the unit of the open head {@code oh}. */
        String sameUnit(String a) {
            return (unitColumn == null ? "" : a + "." + unitColumn + " = oh." + unitColumn + " AND ")
                    + key.apply(a) + " = oh.message_key";
        }

        /** {@code , a.bytes} when the claim has a byte budget, else nothing. */
        String bytes(String a) {
            return budget == null ? "" : ", " + a + ".bytes";
        }

        /** {@code , octet_length(a.payload) AS bytes} when the claim has a byte budget, else nothing. */
        String payloadBytes(String a) {
            return budget == null ? "" : ", octet_length(" + a + ".payload) AS bytes";
        }

        /**
         * The claimed rows ({@code id}, {@code previous_lease_until}): the first {@code $3} by seq, and of those the
         * ones within the byte budget when there is one.
         */
        String claimed() {
            String firstBySeq = """
                        SELECT a.id, %s
                          FROM (SELECT * FROM keyed UNION ALL SELECT * FROM unkeyed) a
                         ORDER BY a.seq
                         LIMIT $3""";
            return budget == null ? firstBySeq.formatted("a.previous_lease_until")
                    : LeasedTableSql.withinBudget("(" + firstBySeq.formatted("a.seq, a.previous_lease_until, a.bytes")
                            + ")", budget);
        }

        /** The scope condition on alias {@code a}, or nothing for a table without a scope column. */
        String scope(String a) {
            return table.scopeColumn() == null ? "" : " AND " + a + "." + table.scopeColumn() + " = $5";
        }

        /** Whether the key is the plain column {@code message_key}, as in the outbox. */
        private boolean plainKey(String a) {
            return key.apply(a).equals(a + ".message_key");
        }

        /** The key of alias {@code a} in a select list, named {@code message_key}. */
        String selectKey(String a) {
            return plainKey(a) ? key.apply(a) : key.apply(a) + " AS message_key";
        }

        /**
         * The key index's predicate where a run's rows are read by their key: a plain column's equality implies it (it
         * is strict), an expression's does not, nor does a unit's (its index's predicate says more than the key).
         */
        String runKeyed(String a) {
            return plainKey(a) && unitColumn == null ? "" : " AND " + keyed.apply(a);
        }

        /** The id of alias {@code a} in a select list, named {@code id}. */
        String selectId(String a) {
            String id = a + "." + table.idColumn();
            return table.idColumn().equals("id") ? id : id + " AS id";
        }
    }

    private static final String TEMPLATE = """
            WITH RECURSIVE
            after_cursor AS (
                (SELECT {unit h}{select-key h}, h.seq, h.visible_after, h.lease_until
                   FROM {table} h
                  WHERE h.status IN {live}{scope h} AND {keyed h} AND {after-cursor h}
                  ORDER BY {unit h}{key h}, h.seq
                  LIMIT 1)
                UNION ALL
                SELECT {unit n}n.message_key, n.seq, n.visible_after, n.lease_until
                  FROM after_cursor k
                 CROSS JOIN LATERAL (
                       SELECT {unit h}{select-key h}, h.seq, h.visible_after, h.lease_until
                         FROM {table} h
                        WHERE h.status IN {live}{scope h} AND {keyed h} AND {after-previous h}
                        ORDER BY {unit h}{key h}, h.seq
                        LIMIT 1) n
            ),
            before_cursor AS (
                (SELECT {unit h}{select-key h}, h.seq, h.visible_after, h.lease_until
                   FROM {table} h
                  WHERE h.status IN {live}{scope h} AND {keyed h} AND {up-to-cursor h}
                  ORDER BY {unit h}{key h}, h.seq
                  LIMIT 1)
                UNION ALL
                SELECT {unit n}n.message_key, n.seq, n.visible_after, n.lease_until
                  FROM before_cursor k
                 CROSS JOIN LATERAL (
                       SELECT {unit h}{select-key h}, h.seq, h.visible_after, h.lease_until
                         FROM {table} h
                        WHERE h.status IN {live}{scope h} AND {keyed h}
                          AND {after-previous h} AND {up-to-cursor h}
                        ORDER BY {unit h}{key h}, h.seq
                        LIMIT 1) n
            ),
            open_head AS (
                SELECT {unit w}w.message_key, w.seq
                  FROM (SELECT * FROM after_cursor UNION ALL SELECT * FROM before_cursor) w
                 WHERE {claimable w}
                 LIMIT $3
            ),
            keyed AS (
                SELECT run.id, run.seq, run.previous_lease_until{bytes run}
                  FROM open_head oh
                 CROSS JOIN LATERAL (
                       SELECT array_agg(r.tid ORDER BY r.seq) AS tids, array_agg(r.seq ORDER BY r.seq) AS seqs
                         FROM (SELECT x.ctid AS tid, x.seq, bool_and({claimable x}) OVER (ORDER BY x.seq) AS contiguous
                                 FROM {table} x
                                WHERE x.status IN {live}{scope x} AND {same-unit x}{run-keyed x} AND x.seq >= oh.seq
                                ORDER BY x.seq
                                LIMIT {run-limit}) r
                        WHERE r.contiguous) candidate
                 CROSS JOIN LATERAL (
                       SELECT l.id, l.seq, l.previous_lease_until{bytes l}
                         FROM (SELECT k.id, k.seq, k.previous_lease_until{bytes k}, row_number() OVER (ORDER BY k.seq) AS n
                                 FROM (SELECT {select-id m}, m.seq, m.lease_until AS previous_lease_until{payload-bytes m}
                                         FROM {table} m
                                        WHERE m.ctid = ANY(candidate.tids) AND m.status IN {live} AND {claimable m}
                                          FOR UPDATE SKIP LOCKED) k) l
                        WHERE width_bucket(l.seq, candidate.seqs) = l.n) run
                 LIMIT $3
            ),
            unkeyed AS (
                SELECT {select-id u}, u.seq, u.lease_until AS previous_lease_until{payload-bytes u}
                  FROM {table} u
                 WHERE u.status IN {live}{scope u} AND {unkeyed u} AND {claimable u}
                 ORDER BY u.seq
                 LIMIT $3
                   FOR UPDATE SKIP LOCKED
            ),
            c AS (
            {claimed}
            )
            {set}
              FROM c
             WHERE o.{id} = c.id{scope o} AND {async}
            {returning}
            """;

    private static final Pattern TOKEN = Pattern.compile("\\{([a-z-]+)(?: ([a-z]+))?}");

    /** The per-key claim of {@code shape}'s table. */
    static String statement(Shape shape) {
        Map<String, String> fixed = Map.of("table", shape.table().name(), "live", LeasedTableSql.LIVE,
                "id", shape.table().idColumn(), "set", shape.set(),
                "returning", shape.returning(), "async", LeasedTableSql.ASYNC_CLAIM_COMMIT);
        Matcher m = TOKEN.matcher(TEMPLATE);
        StringBuilder sql = new StringBuilder(TEMPLATE.length() * 2);
        while (m.find()) {
            String alias = m.group(2);
            String value = switch (m.group(1)) {
                case "key" -> shape.key().apply(alias);
                case "keyed" -> shape.keyed().apply(alias);
                case "unkeyed" -> shape.unkeyed().apply(alias);
                case "select-key" -> shape.selectKey(alias);
                case "run-keyed" -> shape.runKeyed(alias);
                case "select-id" -> shape.selectId(alias);
                case "scope" -> shape.scope(alias);
                case "claimable" -> LeasedTableSql.claimable(alias);
                case "bytes" -> shape.bytes(alias);
                case "payload-bytes" -> shape.payloadBytes(alias);
                case "run-limit" -> shape.runLimit();
                case "unit" -> shape.unit(alias);
                case "after-cursor" -> shape.compare(alias, ">", shape.cursor());
                case "up-to-cursor" -> shape.compare(alias, "<=", shape.cursor());
                case "after-previous" -> shape.compare(alias, ">", shape.unit("k") + "k.message_key");
                case "same-unit" -> shape.sameUnit(alias);
                case "claimed" -> shape.claimed();
                default -> Objects.requireNonNull(fixed.get(m.group(1)), m.group());
            };
            m.appendReplacement(sql, Matcher.quoteReplacement(value));
        }
        m.appendTail(sql);
        return sql.toString();
    }
}
