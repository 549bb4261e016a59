/**
 * Every statement the service runs: the {@link dev.dispatcher.app.store.LeasedQueue} port implemented for the outbox
 * and for each inbox consumer (claims, classified transitions, backlog, retention), inbox intake, operator reads and
 * mutations returning sealed {@link dev.dispatcher.app.store.OperatorMutation} results, the pause switch, the audit
 * trail, and the one database failure classifier ({@link dev.dispatcher.app.store.DatabaseFailures}). The SQL text
 * lives in {@code dev.dispatcher.sql}; this package binds and maps it (and listens on the outbox's channel,
 * {@link dev.dispatcher.app.store.OutboxNotifications}), and no other package of the service binds a statement or
 * holds the driver's own connection (an ArchUnit rule keeps it so). Every method is lazy and non-blocking; nothing
 * holds a transaction open while publishing.
 */
package dev.dispatcher.app.store;
