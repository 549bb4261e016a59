package dev.dispatcher.app.config;

import dev.dispatcher.app.source.Source;
import dev.dispatcher.sql.SessionSettings;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactoryProvider;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryOptions;
import io.r2dbc.spi.Option;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.flyway.autoconfigure.FlywayProperties;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcProperties;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Opens the database of one {@code dispatcher.sources[i]}: a connection pool of its own, configured as the default
 * source's ({@code spring.r2dbc.pool.*}, {@code spring.r2dbc.properties.*}, and the session settings of {@link
 * DatabaseConfiguration}), and its tables migrated with {@code spring.flyway.*} over JDBC.
 *
 * <p>Migration runs once at start-up on the calling thread (Flyway is blocking). A source that cannot be reached
 * then does not stop the service, which drains its other sources: its migration is retried with backoff on a
 * thread that may block ({@link Schedulers#boundedElastic()}), and its relay starts once it succeeded
 * ({@link Source#migrated()}).
 */
final class SourceDatabases {

    private static final Logger log = LoggerFactory.getLogger(SourceDatabases.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration MAX_RETRY = Duration.ofSeconds(30);

    private SourceDatabases() {
    }

    /** The source of {@code properties}: its pool, and its migration done or under way. */
    static Source open(SourceProperties source, int index, DispatcherProperties dispatcher, R2dbcProperties r2dbc,
            FlywayProperties flyway) {
        ConnectionFactoryOptions options = options(source, index, dispatcher, r2dbc);
        ConnectionFactory connections = pool(ConnectionFactories.get(options), r2dbc.getPool());
        Flyway migrations = migrations(source, options, flyway);
        Mono<Void> migrated;
        if (migrate(source, migrations)) {
            migrated = Mono.empty();
        } else {
            migrated = Mono.<Void>fromRunnable(() -> migrations.migrate())
                    .subscribeOn(Schedulers.boundedElastic())
                    .retryWhen(Retry.backoff(Long.MAX_VALUE, FIRST_RETRY).maxBackoff(MAX_RETRY)
                            .doBeforeRetry(s -> log.warn("source {}: migrating its tables failed again ({});"
                                    + " retrying", source.name(), s.failure().toString())))
                    .doOnSuccess(done -> log.info("source {}: tables migrated; its relay starts", source.name()))
                    .cache();
        }
        return new Source(source.name(), connections, source.schema(), migrated);
    }

    private static boolean migrate(SourceProperties source, Flyway migrations) {
        try {
            migrations.migrate();
            return true;
        } catch (RuntimeException e) {
            log.warn("source {}: migrating its tables failed ({}); its relay waits and migration is retried",
                    source.name(), e.toString());
            return false;
        }
    }

    static ConnectionFactoryOptions options(SourceProperties source, int index, DispatcherProperties dispatcher,
            R2dbcProperties r2dbc) {
        ConnectionFactoryOptions parsed;
        try {
            parsed = ConnectionFactoryOptions.parse(source.url());
        } catch (IllegalArgumentException e) {
            throw PropertyRules.invalid("sources[" + index + "].url", "must be an R2DBC URL (" + e.getMessage() + ")",
                    PropertyRules.quoted(SourceProperties.maskedUrl(source.url())));
        }
        ConnectionFactoryOptions.Builder options = parsed.mutate();
        r2dbc.getProperties().forEach((name, value) -> options.option(Option.valueOf(name), value));
        if (source.username() != null) {
            options.option(ConnectionFactoryOptions.USER, source.username());
        }
        if (source.password() != null) {
            options.option(ConnectionFactoryOptions.PASSWORD, source.password());
        }
        return options
                .option(PostgresqlConnectionFactoryProvider.SCHEMA, source.schema())
                .option(PostgresqlConnectionFactoryProvider.APPLICATION_NAME, dispatcher.applicationName())
                .option(PostgresqlConnectionFactoryProvider.OPTIONS, SessionSettings.SERVICE)
                .option(PostgresqlConnectionFactoryProvider.FORCE_BINARY, true)
                .build();
    }

    /** {@code factory} in a pool sized as {@code spring.r2dbc.pool.*}, unless the URL asked for a pool itself. */
    private static ConnectionFactory pool(ConnectionFactory factory, R2dbcProperties.Pool pool) {
        if (factory instanceof ConnectionPool) {
            return factory;
        }
        ConnectionPoolConfiguration.Builder builder = ConnectionPoolConfiguration.builder(factory)
                .initialSize(pool.getInitialSize())
                .maxSize(pool.getMaxSize())
                .minIdle(pool.getMinIdle())
                .maxIdleTime(pool.getMaxIdleTime())
                .maxLifeTime(pool.getMaxLifeTime())
                .maxValidationTime(pool.getMaxValidationTime())
                .acquireRetry(pool.getAcquireRetry())
                .validationDepth(pool.getValidationDepth());
        if (pool.getMaxAcquireTime() != null) {
            builder.maxAcquireTime(pool.getMaxAcquireTime());
        }
        if (pool.getMaxCreateConnectionTime() != null) {
            builder.maxCreateConnectionTime(pool.getMaxCreateConnectionTime());
        }
        if (pool.getValidationQuery() != null) {
            builder.validationQuery(pool.getValidationQuery());
        }
        return new ConnectionPool(builder.build());
    }

    private static Flyway migrations(SourceProperties source, ConnectionFactoryOptions options,
            FlywayProperties flyway) {
        Object user = options.getValue(ConnectionFactoryOptions.USER);
        Object password = options.getValue(ConnectionFactoryOptions.PASSWORD);
        return Flyway.configure()
                .dataSource(R2dbcDerivedFlywayConnectionDetails.jdbcUrl(options), user == null ? null : user.toString(),
                        password == null ? null : password.toString())
                .schemas(source.schema())
                .defaultSchema(source.schema())
                .createSchemas(flyway.isCreateSchemas())
                .table(flyway.getTable())
                .locations(flyway.getLocations().toArray(String[]::new))
                .placeholderReplacement(flyway.isPlaceholderReplacement())
                .load();
    }
}
