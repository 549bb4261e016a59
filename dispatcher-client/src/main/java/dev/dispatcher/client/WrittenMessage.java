package dev.dispatcher.client;

import java.time.Instant;
import java.util.UUID;

/**
 * A message as its outbox row was written: the row's identity, claim order and state when the insert returned;
 * the relay publishes it after the writing transaction commits.
 *
 * @param id the message id (the Kafka {@code message-id} header)
 * @param seq the claim order; a key's rows are sent in this order
 * @param status the durable status, {@code PENDING} when written
 * @param version the optimistic-concurrency version, {@code 0} when written
 * @param createdAt the database time of the insert (transaction start)
 * @param visibleAfter database time before which the relay does not publish it ({@code createdAt} unless delayed)
 */
public record WrittenMessage(UUID id, long seq, String status, long version, Instant createdAt, Instant visibleAfter) {
}
