/**
 * Writers that join the application's current Spring-managed transaction: {@link
 * dev.dispatcher.client.spring.SpringJdbcOutboxWriter} (JdbcTemplate, JPA, {@code @Transactional} over JDBC) and
 * {@link dev.dispatcher.client.spring.SpringR2dbcOutboxWriter} (reactive transactions over R2DBC).
 *
 * <p>Spring is an optional dependency of the client: only this package needs it (spring-jdbc or spring-r2dbc with
 * spring-tx), and nothing outside it refers to Spring, so an application without Spring uses {@link
 * dev.dispatcher.client.OutboxWriter} or {@link dev.dispatcher.client.JdbcOutboxWriter} with the client's own
 * dependencies only.
 */
package dev.dispatcher.client.spring;
