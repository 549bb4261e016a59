/**
 * Writing outbox rows from an application's own transaction: {@link dev.dispatcher.client.OutboxWriter} (R2DBC)
 * and {@link dev.dispatcher.client.JdbcOutboxWriter} (JDBC) with {@link dev.dispatcher.client.OutboxMessage}.
 * Depends on the R2DBC SPI, Reactor, Dispatcher's SQL and its domain rules only; the writers that join Spring's
 * transactions live in {@code dev.dispatcher.client.spring}.
 */
package dev.dispatcher.client;
