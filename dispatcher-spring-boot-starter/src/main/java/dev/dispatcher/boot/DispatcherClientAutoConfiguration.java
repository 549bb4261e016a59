package dev.dispatcher.boot;

import dev.dispatcher.client.JdbcOutboxWriter;
import dev.dispatcher.client.OutboxWriter;
import dev.dispatcher.client.spring.SpringJdbcOutboxWriter;
import dev.dispatcher.client.spring.SpringR2dbcOutboxWriter;
import io.r2dbc.spi.ConnectionFactory;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.r2dbc.core.DatabaseClient;

/**
 * Dispatcher in an application that writes outbox rows: the writers that fit it, for {@code dispatcher.schema},
 * with {@code dispatcher.client.max-delay} and {@code max-payload-size}, and, with {@code
 * dispatcher.client.migrate=true}, Dispatcher's migrations.
 *
 * <ul>
 *   <li>With a {@code DataSource} (JDBC, JdbcTemplate, JPA): a {@link JdbcOutboxWriter} and a {@link
 *       SpringJdbcOutboxWriter} that joins the current transaction.
 *   <li>With an R2DBC {@code ConnectionFactory}: an {@link OutboxWriter} and a {@link SpringR2dbcOutboxWriter} that
 *       joins the current reactive transaction.
 *   <li>Both, when the application has both. Each bean backs off when the application defines its own.
 *   <li>{@code dispatcher.client.migrate=true}: {@link DispatcherMigration} applies Dispatcher's migrations through
 *       the {@code DataSource}, or, in an R2DBC application, over JDBC to the database of {@code spring.r2dbc.url}
 *       (needs the PostgreSQL JDBC driver), before any writer exists. The application's own Flyway is untouched.
 * </ul>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration"})
@EnableConfigurationProperties(DispatcherClientProperties.class)
public final class DispatcherClientAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcTemplate.class)
    @ConditionalOnBean(DataSource.class)
    static final class JdbcWriters {

        @Bean
        @ConditionalOnMissingBean
        JdbcOutboxWriter jdbcOutboxWriter(DispatcherClientProperties properties,
                ObjectProvider<DispatcherMigration> migration) {
            migration.ifAvailable(migrated -> { });
            return JdbcOutboxWriter.forSchema(properties.schema()).withMaxDelay(properties.client().maxDelay())
                    .withMaxPayloadSize(properties.client().maxPayloadSize().toBytes());
        }

        @Bean
        @ConditionalOnMissingBean
        SpringJdbcOutboxWriter springJdbcOutboxWriter(DataSource dataSource, JdbcOutboxWriter writer) {
            return new SpringJdbcOutboxWriter(dataSource, writer);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DatabaseClient.class, ConnectionFactory.class})
    @ConditionalOnBean(ConnectionFactory.class)
    static final class R2dbcWriters {

        @Bean
        @ConditionalOnMissingBean
        OutboxWriter outboxWriter(DispatcherClientProperties properties, ObjectProvider<DispatcherMigration> migration) {
            migration.ifAvailable(migrated -> { });
            return OutboxWriter.forSchema(properties.schema()).withMaxDelay(properties.client().maxDelay())
                    .withMaxPayloadSize(properties.client().maxPayloadSize().toBytes());
        }

        @Bean
        @ConditionalOnMissingBean
        SpringR2dbcOutboxWriter springR2dbcOutboxWriter(ConnectionFactory connectionFactory, OutboxWriter writer) {
            return new SpringR2dbcOutboxWriter(connectionFactory, writer);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(DispatcherMigrations.MIGRATE)
    @ConditionalOnClass(Flyway.class)
    static final class DispatcherMigrations {

        static final String MIGRATE = "dispatcher.client.migrate";

        @Bean
        DispatcherMigration dispatcherMigration(DispatcherClientProperties properties,
                ObjectProvider<DispatcherMigration.Connection> connection) {
            DispatcherMigration.Connection through = connection.getIfAvailable(() -> {
                throw new IllegalStateException(MIGRATE + " is true, but the application has neither a DataSource"
                        + " nor an R2DBC connection (spring.r2dbc.url) to migrate through");
            });
            return new DispatcherMigration(through, properties.schema());
        }

        @Bean
        @ConditionalOnBean(DataSource.class)
        DispatcherMigration.Connection dataSourceMigrationConnection(DataSource dataSource) {
            return flyway -> flyway.dataSource(dataSource);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(R2dbcConnectionDetails.class)
        @ConditionalOnBean(R2dbcConnectionDetails.class)
        @ConditionalOnMissingBean(DataSource.class)
        static final class OverR2dbc {

            @Bean
            DispatcherMigration.Connection r2dbcMigrationConnection(R2dbcConnectionDetails r2dbc) {
                return new R2dbcMigrationConnection(r2dbc.getConnectionFactoryOptions());
            }
        }
    }

    /** {@code dispatcher.client.migrate=true} without Flyway: say what is missing instead of ignoring the switch. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(DispatcherMigrations.MIGRATE)
    @ConditionalOnMissingClass("org.flywaydb.core.Flyway")
    static final class MigrationsWithoutFlyway {

        @Bean
        Object dispatcherMigration() {
            throw new IllegalStateException(DispatcherMigrations.MIGRATE + " is true, but Flyway is not on the"
                    + " classpath: add org.flywaydb:flyway-core and org.flywaydb:flyway-database-postgresql");
        }
    }
}
