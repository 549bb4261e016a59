package dev.dispatcher.sql;

/**
 * What the service reads and runs to keep PostgreSQL's planner statistics of the queue tables up with their size
 * while they are young (see {@code store.PlannerStatistics} for why). Reads catalogs only, never the tables.
 */
public final class StatisticsSql {

    /**
     * Each queue table of the connection's schema: {@code analysed_rows}, the row count the planner assumes
     * ({@code pg_class.reltuples}: -1 until the table is first analysed or vacuumed), and {@code live_rows}, its
     * live rows now (the cumulative statistics' {@code n_live_tup}, which every committed insert and delete
     * updates). Catalog lookups by oid; cheap whatever the tables hold.
     */
    public static final String TABLE_SIZES = """
            SELECT c.relname::text AS table_name, c.reltuples::bigint AS analysed_rows,
                   pg_stat_get_live_tuples(c.oid) AS live_rows
              FROM pg_class c
             WHERE c.oid IN (to_regclass('outbox_message'), to_regclass('inbox_message'))
            """;

    /**
     * The statistics target of these analyses (PostgreSQL's default is 100): a sample of 300 times this many rows and
     * histograms of this many buckets. A young table's plans need its size and its columns' rough shape, not a fine
     * histogram, and each analysis reads the sample's rows with their payloads (of 50,000 rows at the default target:
     * 200-300 ms of a backend's time; at 10: 15 ms). Autovacuum's later analyses take the tables' own targets.
     */
    public static final int YOUNG_TABLE_TARGET = 10;

    /** Sets {@link #YOUNG_TABLE_TARGET} for the rest of the transaction, in which the analysis runs. */
    public static final String AT_YOUNG_TABLE_TARGET = "SET LOCAL default_statistics_target = " + YOUNG_TABLE_TARGET;

    /** Samples {@code outbox_message} for the planner; invalidates every session's cached plans that read it. */
    public static final String ANALYZE_OUTBOX = "ANALYZE outbox_message";

    /** Samples {@code inbox_message} for the planner; invalidates every session's cached plans that read it. */
    public static final String ANALYZE_INBOX = "ANALYZE inbox_message";

    private StatisticsSql() {
    }
}
