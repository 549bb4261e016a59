package dev.dispatcher.app.config;

import dev.dispatcher.app.source.Source;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.app.store.PlannerStatistics;
import dev.dispatcher.sql.Migrations;
import dev.dispatcher.sql.SessionSettings;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayProperties;
import org.springframework.boot.r2dbc.autoconfigure.ConnectionFactoryOptionsBuilderCustomizer;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcConnectionDetails;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import reactor.core.publisher.Mono;

/**
 * Points Boot's R2DBC connections and Flyway at {@code dispatcher.schema}.
 *
 * <ul>
 *   <li>Every R2DBC connection uses the schema as its {@code search_path} and identifies itself as {@code
 *       dispatcher-<worker-id>} in {@code pg_stat_activity}. It plans each prepared statement once ({@code
 *       plan_cache_mode=force_generic_plan}, {@link SessionSettings}): planned per call, planning would cost about as
 *       much server time as executing under steady ingest. Every other statement's generic plan finds its rows through
 *       an index whatever its parameters, once the table's statistics describe a table of some size, and never joins by
 *       comparing all pairs ({@code GenericPlanIT}); {@link PlannerStatistics} keeps the statistics of young queue
 *       tables up with their size, so no connection keeps a plan made for an empty table. The few whose best plan
 *       depends on their values (the claims that read a live index in {@code seq} order, retention) run in a
 *       transaction planned per call ({@code store.Connections}). Results come back in binary format ({@code
 *       forceBinary}): in text format, parsing timestamps with a {@code DateTimeFormatter} and payloads from hex would
 *       cost the event loop that runs every statement's results much of its time.
 *   <li>Flyway creates and migrates the schema at start-up (history table from {@code spring.flyway.table}).
 *       When {@code spring.flyway.url} is not set it connects over JDBC to the database, user and password of
 *       {@code spring.r2dbc.*}.
 *   <li>Behind a transaction pooler ({@code dispatcher.database.pooler=transaction}, {@link DatabaseProperties}): no
 *       startup parameters beyond the driver's own (PgBouncer refuses those it does not know, and a session's
 *       settings would not outlive a transaction anyway), so no {@code search_path} and no {@code plan_cache_mode}:
 *       the database gives the user its {@code search_path} ({@link PoolerSessionCheck} refuses to start
 *       otherwise); unnamed statements, unless {@code spring.r2dbc.properties.preparedStatementCacheQueries} is set
 *       (a pooler that keeps named statements); Flyway needs {@code spring.flyway.url} straight to PostgreSQL; the
 *       relay's {@code LISTEN} connection comes from {@code dispatcher.database.listen-url}, else it polls.
 *       docs/poolers.md.
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
final class DatabaseConfiguration {

    @Bean
    ConnectionFactoryOptionsBuilderCustomizer dispatcherConnectionOptions(DispatcherProperties properties,
            R2dbcProperties r2dbc) {
        DatabaseProperties database = properties.database();
        return options -> {
            options.option(PostgresqlConnectionFactoryProvider.APPLICATION_NAME, properties.applicationName())
                    .option(PostgresqlConnectionFactoryProvider.FORCE_BINARY, true);
            if (!database.transactionPooled()) {
                options.option(PostgresqlConnectionFactoryProvider.SCHEMA, properties.schema())
                        .option(PostgresqlConnectionFactoryProvider.OPTIONS, SessionSettings.SERVICE);
            } else if (!namedStatements(r2dbc)) {
                options.option(PostgresqlConnectionFactoryProvider.PREPARED_STATEMENT_CACHE_QUERIES, 0);
            }
        };
    }

    /**
     * Behind a transaction pooler, takes the connection properties that the driver sends as startup parameters out of
     * {@code spring.r2dbc.properties} before Boot builds the connections from them ({@link PoolerStartupParameters});
     * the session check then compares them with what sessions through the pooler have.
     */
    @Bean
    static PoolerStartupParameters poolerStartupParameters(Environment environment) {
        return new PoolerStartupParameters(environment);
    }

    /** Whether statements are prepared under names behind a pooler: only when the user asked for a cache. */
    private static boolean namedStatements(R2dbcProperties r2dbc) {
        String cache = r2dbc.getProperties().get(PostgresqlConnectionFactoryProvider.PREPARED_STATEMENT_CACHE_QUERIES
                .name());
        return cache != null && !cache.trim().equals("0");
    }

    /**
     * Every source: {@code default} on Boot's pool (migrated by Boot's Flyway), then each of {@code
     * dispatcher.sources} on a pool of its own, migrated here ({@link SourceDatabases}). Their pools close with it.
     */
    @Bean
    Sources sources(ConnectionFactory connectionFactory, DispatcherProperties properties, R2dbcProperties r2dbc,
            ObjectProvider<FlywayProperties> flyway, PoolerStartupParameters startupParameters) {
        DatabaseProperties database = properties.database();
        if (database.transactionPooled() && !properties.sources().isEmpty()) {
            throw PropertyRules.invalid("database.pooler", "must be none while dispatcher.sources is set (further"
                    + " sources behind a transaction pooler are not supported yet: docs/poolers.md)",
                    PropertyRules.quoted("transaction"));
        }
        if (database.transactionPooled()) {
            PoolerSessionCheck.check(connectionFactory, properties.schema(), namedStatements(r2dbc),
                    database.listenUrl(), properties.relay().pollInterval(), startupParameters.removed());
        }
        FlywayProperties migrations = flyway.getIfAvailable(DatabaseConfiguration::dispatcherMigrations);
        List<Source> others = new ArrayList<>();
        for (int i = 0; i < properties.sources().size(); i++) {
            others.add(SourceDatabases.open(properties.sources().get(i), i, properties, r2dbc, migrations));
        }
        return Sources.of(new Source(Sources.DEFAULT, connectionFactory, properties.schema(), Mono.empty(),
                wakeUps(connectionFactory, properties, database, r2dbc)), others);
    }

    /**
     * Where the default source's {@code LISTEN} connection comes from: {@code dispatcher.database.listen-url} when
     * set (with the user and password of {@code spring.r2dbc.*} unless it names its own), else the pool's own factory
     * on a direct connection, else nowhere (the relay polls).
     */
    static @Nullable ConnectionFactory wakeUps(ConnectionFactory pooled, DispatcherProperties properties,
            DatabaseProperties database, R2dbcProperties r2dbc) {
        if (database.listenUrl() == null) {
            return database.transactionPooled() ? null : pooled;
        }
        ConnectionFactoryOptions parsed = ConnectionFactoryOptions.parse(database.listenUrl());
        ConnectionFactoryOptions.Builder options = parsed.mutate();
        if (!parsed.hasOption(ConnectionFactoryOptions.USER) && r2dbc.getUsername() != null) {
            options.option(ConnectionFactoryOptions.USER, r2dbc.getUsername());
        }
        if (!parsed.hasOption(ConnectionFactoryOptions.PASSWORD) && r2dbc.getPassword() != null) {
            options.option(ConnectionFactoryOptions.PASSWORD, r2dbc.getPassword());
        }
        return ConnectionFactories.get(options
                .option(PostgresqlConnectionFactoryProvider.APPLICATION_NAME, properties.applicationName())
                .build());
    }

    /** Flyway's settings for Dispatcher's migrations when Boot's Flyway is off. */
    private static FlywayProperties dispatcherMigrations() {
        FlywayProperties flyway = new FlywayProperties();
        flyway.setCreateSchemas(true);
        flyway.setTable(Migrations.HISTORY_TABLE);
        flyway.setLocations(List.of(Migrations.LOCATION));
        flyway.setPlaceholderReplacement(false);
        return flyway;
    }

    @Bean
    PlannerStatisticsLifecycle plannerStatisticsLifecycle(Sources sources) {
        return new PlannerStatisticsLifecycle(sources.all().stream()
                .map(source -> new PlannerStatistics(source.connections())).toList());
    }

    @Bean
    FlywayConfigurationCustomizer dispatcherFlywaySchema(DispatcherProperties properties) {
        return flyway -> flyway.schemas(properties.schema()).defaultSchema(properties.schema());
    }

    /**
     * Flyway's JDBC connection derived from {@code spring.r2dbc.*}. Registered as Boot's
     * {@code JdbcConnectionDetails} too, because that is what switches Flyway's auto-configuration on without a
     * {@code DataSource} (a {@code DataSource} bean would also bring a JDBC transaction manager next to R2DBC's).
     * Resolved when Flyway starts, so properties added late (tests' {@code @DynamicPropertySource}) are seen.
     */
    @Bean
    @Conditional(FlywayUrlNotSet.class)
    R2dbcDerivedFlywayConnectionDetails flywayConnectionDetailsFromR2dbc(
            ObjectProvider<R2dbcConnectionDetails> r2dbc, DispatcherProperties properties, Environment environment) {
        if (properties.database().transactionPooled() && environment.getProperty("spring.flyway.enabled", Boolean.class, true)) {
            throw new IllegalArgumentException("spring.flyway.url must be set to a direct connection to PostgreSQL"
                    + " when dispatcher.database.pooler is transaction (migrations hold a session-level lock that a"
                    + " transaction pooler does not keep; docs/poolers.md), but was absent");
        }
        return new R2dbcDerivedFlywayConnectionDetails(r2dbc);
    }

    /** An explicit {@code spring.flyway.url} wins: Boot then builds Flyway's connection from it alone. */
    static final class FlywayUrlNotSet extends NoneNestedConditions {

        FlywayUrlNotSet() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(prefix = "spring.flyway", name = "url")
        static final class FlywayUrlSet {
        }
    }
}
