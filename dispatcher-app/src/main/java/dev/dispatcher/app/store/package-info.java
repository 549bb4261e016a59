/**
 * Leased-queue persistence over R2DBC: claiming batches, batched guarded transitions classified into sealed
 * outcomes, retention, and backlog figures. Statements live in {@code dev.dispatcher.sql}; this package binds and
 * maps them. Every method is lazy and non-blocking; nothing holds a transaction open while publishing.
 */
package dev.dispatcher.app.store;
