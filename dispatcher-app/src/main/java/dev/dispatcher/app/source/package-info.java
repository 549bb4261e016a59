/**
 * The databases Dispatcher drains: the {@code default} source of {@code spring.r2dbc.*} and those of {@code
 * dispatcher.sources}, each with its own connection pool and tables, and values kept per source ({@link
 * dev.dispatcher.app.source.PerSource}), so one source's relay, ingest and stores never wait on another's database.
 */
package dev.dispatcher.app.source;
