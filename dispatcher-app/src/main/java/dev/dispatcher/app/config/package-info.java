/**
 * Wiring of the service: Dispatcher's own configuration ({@link dev.dispatcher.app.config.DispatcherProperties}),
 * the database connections and their Flyway migration, and the {@code db} and {@code kafka} health indicators.
 *
 * <p>Connection settings use Spring Boot's own names ({@code spring.r2dbc.*}, {@code spring.flyway.*},
 * {@code spring.kafka.*}); this package only adds what Boot cannot know: the schema, the connection's application
 * name, and the JDBC URL Flyway derives from the R2DBC one.
 */
package dev.dispatcher.app.config;
