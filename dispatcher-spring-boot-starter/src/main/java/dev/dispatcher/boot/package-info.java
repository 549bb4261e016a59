/**
 * The Spring Boot starter for applications that write outbox rows: {@link
 * dev.dispatcher.boot.DispatcherClientAutoConfiguration} with {@link dev.dispatcher.boot.DispatcherClientProperties}.
 */
package dev.dispatcher.boot;
