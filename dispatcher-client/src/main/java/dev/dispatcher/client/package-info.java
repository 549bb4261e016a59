/**
 * Writing outbox rows from an application's own R2DBC transaction: {@link dev.dispatcher.client.OutboxWriter}
 * with {@link dev.dispatcher.client.OutboxMessage}. Depends on the R2DBC SPI, Reactor and Dispatcher's SQL only.
 */
package dev.dispatcher.client;
