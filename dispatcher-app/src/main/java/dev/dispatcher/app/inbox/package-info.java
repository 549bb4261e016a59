/**
 * The inbox: Kafka records taken into {@code inbox_message} exactly once per {@code (consumer_name, message_id)},
 * and a processor per consumer that leases stored rows and runs the consumer's {@link
 * dev.dispatcher.app.inbox.InboxHandler}. An in-process handler's local writes and the row's completion commit in
 * one READ COMMITTED transaction, rolled back unless the completion was applied. Kafka is reached through the
 * small {@link dev.dispatcher.app.inbox.InboxReceiver} adapter (reactor-kafka today). Everything is non-blocking;
 * receiving runs on reactor-kafka's own threads, database work on R2DBC's, HTTP on reactor-netty's.
 */
package dev.dispatcher.app.inbox;
