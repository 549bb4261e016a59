package dev.dispatcher.app.config;

import dev.dispatcher.app.store.SessionSettings;
import dev.dispatcher.app.store.SessionSettings.Session;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.convert.DurationStyle;

/**
 * At start, behind a transaction pooler ({@code dispatcher.database.pooler=transaction}): reads, through the pooler,
 * the session settings the service no longer sends as startup parameters, and refuses to start when {@code
 * search_path} does not lead to {@code dispatcher.schema} (every statement names its tables without a schema), with
 * the exact {@code ALTER ROLE} that fixes it. With named prepared statements (a pooler that keeps them, PgBouncer
 * 1.21+ with {@code max_prepared_statements}), a missing {@code plan_cache_mode=force_generic_plan} is a warning: the
 * service works, with PostgreSQL's own choice of when to plan. docs/poolers.md says what each pooler needs.
 *
 * <p>Runs once on the thread that creates the bean and waits there for the answer, bounded by 30 s: start-up, never an
 * event loop (as Flyway's migrations before it); a database that cannot be reached
 * then is logged and left to readiness, as a direct connection is.
 */
final class PoolerSessionCheck {

    private static final Logger log = LoggerFactory.getLogger(PoolerSessionCheck.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private PoolerSessionCheck() {
    }

    /** Checks a session of {@code connections}; throws naming the setting when the schema would not be found. */
    static void check(ConnectionFactory connections, String schema, boolean namedStatements,
            @Nullable String listenUrl, Duration pollInterval, Map<String, String> configuredTimeouts) {
        Session session;
        try {
            // the start-up thread (bean creation), never a Reactor thread: start-up waits for this one answer
            session = SessionSettings.read(connections)
                    .block(TIMEOUT);
        } catch (RuntimeException e) {
            log.warn("dispatcher.database.pooler=transaction: could not read the session settings through the pooler"
                    + " at start ({}); they are not checked", e.toString());
            return;
        }
        if (session == null) {
            return;
        }
        String problem = problem(session, schema);
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
        log.info("dispatcher.database.pooler=transaction: sessions through the pooler have search_path {}; statements"
                + " are {}; the relay wakes {}", session.searchPath(),
                namedStatements ? "prepared under names the pooler must keep" : "unnamed (planned on every call)",
                listenUrl == null ? "by polling every " + PropertyRules.format(pollInterval)
                        + " (dispatcher.relay.poll-interval: the latency of a new row on an idle relay)"
                        : "on LISTEN over dispatcher.database.listen-url");
        configuredTimeouts.forEach((setting, configured) -> {
            if (!sameDuration(configured, session.timeouts().get(setting))) {
                log.warn("dispatcher.database.pooler=transaction: {} ({} in spring.r2dbc.properties) is not sent as a"
                        + " startup parameter behind a transaction pooler, and sessions through the pooler have {};"
                        + " give the user the setting: ALTER ROLE {} IN DATABASE {} SET {} = '{}' (docs/poolers.md)",
                        setting, configured, session.timeouts().get(setting), session.user(), session.database(),
                        setting, configured);
            }
        });
        if (namedStatements && !"force_generic_plan".equals(session.planCacheMode())) {
            log.warn("dispatcher.database.pooler=transaction with named prepared statements: sessions through the"
                    + " pooler have plan_cache_mode {}, not the force_generic_plan the service sets on a direct"
                    + " connection (PostgreSQL may plan a statement on every call); give the user the setting: ALTER ROLE {} IN DATABASE {} SET plan_cache_mode ="
                    + " force_generic_plan (docs/poolers.md)", session.planCacheMode(), session.user(),
                    session.database());
        }
    }

    /** Whether a configured duration ({@code 30s}, {@code PT30S}) and a PostgreSQL setting ({@code 30s}) agree. */
    static boolean sameDuration(String configured, @Nullable String setting) {
        try {
            return setting != null && DurationStyle.detectAndParse(configured.trim()).equals(postgresDuration(setting));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A time setting as {@code SHOW} prints it: {@code 0}, {@code 250ms}, {@code 30s}, {@code 5min}, {@code 2h}. */
    static Duration postgresDuration(String value) {
        String v = value.trim();
        int unit = 0;
        while (unit < v.length() && Character.isDigit(v.charAt(unit))) {
            unit++;
        }
        long amount = Long.parseLong(v.substring(0, unit));
        return switch (v.substring(unit)) {
            case "", "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "min" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw new IllegalArgumentException("not a PostgreSQL time setting: " + value);
        };
    }

    /** Why {@code session} cannot run the service's statements for {@code schema}, or null when it can. */
    static @Nullable String problem(Session session, String schema) {
        List<String> path = Arrays.stream(session.searchPath().split(","))
                .map(String::trim).map(p -> p.replace("\"", "")).filter(p -> !p.isEmpty()).toList();
        String first = path.isEmpty() ? "" : path.getFirst();
        if (first.equals("$user")) {
            first = session.user();
        }
        if (first.equals(schema)) {
            return null;
        }
        return "dispatcher.database.pooler=transaction: sessions through the pooler have search_path '"
                + session.searchPath() + "', which does not lead to dispatcher.schema '" + schema + "'; behind a"
                + " transaction pooler the service sends no search_path of its own, so the database must give it to"
                + " the user: ALTER ROLE " + session.user() + " IN DATABASE " + session.database()
                + " SET search_path = " + schema + " (then reconnect the pooler's server connections;"
                + " docs/poolers.md)";
    }
}
