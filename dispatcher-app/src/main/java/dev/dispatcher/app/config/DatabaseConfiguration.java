package dev.dispatcher.app.config;

import dev.dispatcher.app.source.Source;
import dev.dispatcher.app.source.Sources;
import dev.dispatcher.app.store.PlannerStatistics;
import dev.dispatcher.sql.Migrations;
import dev.dispatcher.sql.SessionSettings;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;
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
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
final class DatabaseConfiguration {

    @Bean
    ConnectionFactoryOptionsBuilderCustomizer dispatcherConnectionOptions(DispatcherProperties properties) {
        return options -> options
                .option(PostgresqlConnectionFactoryProvider.SCHEMA, properties.schema())
                .option(PostgresqlConnectionFactoryProvider.APPLICATION_NAME, properties.applicationName())
                .option(PostgresqlConnectionFactoryProvider.OPTIONS, SessionSettings.SERVICE)
                .option(PostgresqlConnectionFactoryProvider.FORCE_BINARY, true);
    }

    /**
     * Every source: {@code default} on Boot's pool (migrated by Boot's Flyway), then each of {@code
     * dispatcher.sources} on a pool of its own, migrated here ({@link SourceDatabases}). Their pools close with it.
     */
    @Bean
    Sources sources(ConnectionFactory connectionFactory, DispatcherProperties properties, R2dbcProperties r2dbc,
            ObjectProvider<FlywayProperties> flyway) {
        FlywayProperties migrations = flyway.getIfAvailable(DatabaseConfiguration::dispatcherMigrations);
        List<Source> others = new ArrayList<>();
        for (int i = 0; i < properties.sources().size(); i++) {
            others.add(SourceDatabases.open(properties.sources().get(i), i, properties, r2dbc, migrations));
        }
        return Sources.of(new Source(Sources.DEFAULT, connectionFactory, properties.schema(), Mono.empty()), others);
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
            ObjectProvider<R2dbcConnectionDetails> r2dbc) {
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
