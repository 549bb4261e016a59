/**
 * The inbox: Kafka records taken into {@code inbox_message} once per {@code (consumer_name, message_id)}
 * ({@link dev.dispatcher.app.inbox.InboxIntake}; a record that cannot be stored as received is stored losslessly or
 * dead-lettered, never left to stop its partition: {@code IntakeCheck}, {@code IntakeWriter}), and per consumer a leased-queue claim loop whose strategy runs
 * the consumer's {@link dev.dispatcher.app.inbox.InboxHandler} ({@code RunHandlers}). An in-process handler's local
 * writes and the row's completion commit in one READ COMMITTED transaction, rolled back unless the completion was
 * applied; a webhook's completions are written in batches. Per consumer: {@code ordering} (per-key: a key's messages
 * one at a time, in the inbox's arrival order) and a {@code dead-letter-topic} (the kafka package's {@code DeadLetterPublisher}); the id of
 * a CloudEvent is its own ({@code CloudEventAttributes}). Kafka is reached through the kafka package's {@code
 * RecordReceiver} and {@code RecordPublisher}; SQL through the store package. Everything is non-blocking.
 */
package dev.dispatcher.app.inbox;
