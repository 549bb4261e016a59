package dev.dispatcher.app.store;

import dev.dispatcher.sql.StatisticsSql;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Keeps PostgreSQL's planner statistics of the queue tables ({@code outbox_message}, {@code inbox_message}) up with
 * their size while they are young, so that no connection keeps a plan made for an empty table.
 *
 * <p>Why: the service's connections plan each prepared statement once ({@code SessionSettings}), with the statistics of
 * that moment. On a table that is empty, or was last analysed while small, the cheapest plan of nearly every statement
 * reads the whole table (a sequential scan, or the table as the outer side of a join): harmless then, but the plan
 * stays while the table grows, until autovacuum's next ANALYZE invalidates it, which takes 50 changed rows plus 10% of
 * the table and the next autovacuum round (a minute by default): a relay started on an empty outbox behind a steady
 * stream would lock its claims through scans of the whole table (docs/measurements.md, "Moved from the README and
 * javadoc"). PostgreSQL invalidates every session's cached plans of a table when it is analysed, so one ANALYZE
 * re-plans them all on their next call.
 *
 * <p>Rule ({@link #due}): a table is analysed when its statistics assume fewer than {@value #SETTLED_ROWS} rows and
 * it now holds at least {@value #FIRST_ROWS} live rows and twice what they assume (and twice what it held at this
 * instance's last attempt, so a table whose statistics do not move, for lack of the owner's privilege, is tried a
 * few times only). Its plans are then made for at least half the table's size until it is large enough that
 * index access wins whatever it holds (at most seven analyses); from there autovacuum keeps the statistics. Each
 * analysis runs at a low statistics target ({@link StatisticsSql#YOUNG_TABLE_TARGET}: a sample of at most 3,000 rows),
 * in its own transaction.
 *
 * <p>Thread-safe; {@link #refresh()} is lazy and runs on the driver's threads.
 */
public final class PlannerStatistics {

    private static final Logger log = LoggerFactory.getLogger(PlannerStatistics.class);

    /** How often the service compares the queue tables' sizes with their statistics (two catalog lookups). */
    public static final Duration EVERY = Duration.ofSeconds(1);

    /**
     * Statistics that assume this many rows are left to autovacuum (which re-analyses a table after 10% of it
     * changed): plans made from statistics of this size read no growing table in full whatever it grows to
     * ({@code GenericPlanIT}'s drained state has statistics of 50,000 rows).
     */
    static final long SETTLED_ROWS = 50_000;
    /** A table is first analysed once it holds this many live rows. */
    static final long FIRST_ROWS = 1_000;

    private static final Map<String, String> ANALYZE = Map.of(
            "outbox_message", StatisticsSql.ANALYZE_OUTBOX, "inbox_message", StatisticsSql.ANALYZE_INBOX);

    private final ConnectionFactory connections;
    /** Live rows when this instance last analysed each table. */
    private final Map<String, Long> analysedAt = new ConcurrentHashMap<>();

    public PlannerStatistics(ConnectionFactory connections) {
        this.connections = Objects.requireNonNull(connections, "connections");
    }

    /** Whether statistics assuming {@code analysedRows} (-1: never analysed) are due for {@code liveRows} rows. */
    static boolean due(long analysedRows, long liveRows, long liveRowsAtLastAttempt) {
        long assumed = Math.max(analysedRows, 0);
        return analysedRows < SETTLED_ROWS
                && liveRows >= Math.max(FIRST_ROWS, 2 * assumed)
                && liveRows >= 2 * liveRowsAtLastAttempt;
    }

    /** One pass: reads the tables' sizes and analyses each one that is due; emits the tables analysed. */
    public Mono<List<String>> refresh() {
        return Connections.autoCommit(connections,
                        c -> Flux.from(c.createStatement(StatisticsSql.TABLE_SIZES).execute())
                                .flatMap(result -> result.map(row -> new TableSize(row.get("table_name", String.class),
                                        longOf(row.get("analysed_rows", Long.class)),
                                        longOf(row.get("live_rows", Long.class))))))
                .filter(t -> due(t.analysedRows, t.liveRows, analysedAt.getOrDefault(t.table, 0L)))
                .concatMap(this::analyze)
                .collectList();
    }

    private Mono<String> analyze(TableSize t) {
        analysedAt.put(t.table, t.liveRows);
        return Connections.withLocalSettings(StatisticsSql.AT_YOUNG_TABLE_TARGET, connections,
                        c -> Flux.from(c.createStatement(ANALYZE.get(t.table)).execute())
                                .flatMap(result -> result.getRowsUpdated()))
                .then(Mono.fromCallable(() -> {
                    log.info("analysed {} for the planner: {} live rows, statistics assumed {}", t.table, t.liveRows,
                            t.analysedRows < 0 ? "none (never analysed)" : t.analysedRows);
                    return t.table;
                }));
    }

    private static long longOf(Long value) {
        return value == null ? 0 : value;
    }

    private record TableSize(String table, long analysedRows, long liveRows) {
    }
}
