package dev.dispatcher.boot;

import dev.dispatcher.sql.Migrations;
import java.util.function.UnaryOperator;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies Dispatcher's migrations ({@link Migrations#LOCATION}) to {@code dispatcher.schema} when the application
 * starts, recording them in Dispatcher's own history table ({@link Migrations#HISTORY_TABLE}) in that schema.
 *
 * <p>It is not a {@code Flyway} bean on purpose: Boot's Flyway auto-configuration backs off when one exists, and
 * the application's own migrations would then not run. Its Flyway is configured here alone (no {@code
 * spring.flyway.*}, no customizers), so the application's Flyway settings never reach Dispatcher's migrations and
 * the other way round. The writers depend on it, so nothing writes before the tables exist. Blocking JDBC, once,
 * on the thread that starts the application.
 */
final class DispatcherMigration implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(DispatcherMigration.class);

    /** How the migration connects: the application's {@code DataSource}, or JDBC to its R2DBC database. */
    interface Connection extends UnaryOperator<FluentConfiguration> {
    }

    private final Connection connection;
    private final String schema;

    DispatcherMigration(Connection connection, String schema) {
        this.connection = connection;
        this.schema = schema;
    }

    @Override
    public void afterPropertiesSet() {
        MigrateResult result = connection.apply(Flyway.configure(DispatcherMigration.class.getClassLoader()))
                .schemas(schema)
                .defaultSchema(schema)
                .createSchemas(true)
                .table(Migrations.HISTORY_TABLE)
                .locations(Migrations.LOCATION)
                .placeholderReplacement(false)
                .load()
                .migrate();
        log.info("Dispatcher schema {}: {} migration(s) applied, now at version {}", schema,
                result.migrationsExecuted, result.targetSchemaVersion == null ? result.initialSchemaVersion
                        : result.targetSchemaVersion);
    }
}
