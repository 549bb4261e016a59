/**
 * Every SQL statement Dispatcher runs against its tables, beside the migrations that create them, so the schema
 * and the statements that depend on its indexes are reviewed and tested together.
 *
 * <p>Statements use PostgreSQL's native {@code $n} placeholders (R2DBC binds them directly; JDBC tests run them
 * through {@code PREPARE}). Table names are unqualified: connections set the configured schema as search path.
 */
package dev.dispatcher.sql;
