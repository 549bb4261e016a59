package dev.dispatcher.sql;

import java.util.Map;

/**
 * The PostgreSQL session settings every Dispatcher connection runs its statements with, in one place for the
 * service's connections, the benchmark harness's and the inbox handler's transaction.
 *
 * <p>{@code plan_cache_mode=force_generic_plan}: each prepared statement is planned once per connection, not on every
 * call, which under steady ingest would cost about as much server time as executing. That one plan is made with the
 * statistics of the moment, and a plan made while a table is empty reads the whole table on every call ({@code
 * GenericPlanIT}); the service keeps the queue tables' statistics up with their size while they are young ({@code
 * store.PlannerStatistics}), and PostgreSQL re-plans cached statements when a table is analysed.
 */
public final class SessionSettings {

    /** Startup options of every Dispatcher connection. */
    public static final Map<String, String> SERVICE = Map.of("plan_cache_mode", "force_generic_plan");

    /**
     * The {@code SET LOCAL} clause (for a transaction's opening simple query) that gives the application's SQL in
     * an inbox handler's transaction PostgreSQL's own plan choice ({@code auto}) instead of {@link #SERVICE}'s.
     */
    public static final String HANDLER_DEFAULTS = "SET LOCAL plan_cache_mode = auto";

    private SessionSettings() {
    }
}
