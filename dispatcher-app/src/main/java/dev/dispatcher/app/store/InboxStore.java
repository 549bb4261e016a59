package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Persistence of {@code inbox_message}: intake of received records, and each consumer's rows as a
 * {@link LeasedQueue}.
 *
 * <p>All methods are lazy; each runs one statement on a pooled connection in autocommit, except
 * {@link Consumer#deliverWithin}, which runs a handler's transaction. Errors are the driver's, signalled, never
 * thrown.
 */
public interface InboxStore {

    /**
     * Stores {@code records} for {@code consumer} in one statement, skipping ids already stored; a record with a
     * {@linkplain InboxRecord#deadLetterReason() dead-letter reason} is stored {@code DEAD_LETTERED} with it. Emits
     * the ids this call inserted; every other input record is a duplicate. One value the database refuses fails the
     * whole statement, and nothing of it is written. Stored in (topic, partition, offset) order, so a partition's
     * rows take their {@code seq}s in offset order.
     */
    default Mono<Set<MessageId>> store(String consumer, List<InboxRecord> records) {
        return store(consumer, records, Ordering.NONE);
    }

    /**
     * {@link #store(String, List)} for a consumer with {@code ordering}: with {@link Ordering#PER_KEY} the statement
     * holds the consumer's lock of each key it stores from before its rows take their {@code seq} until they commit,
     * so a key's rows commit in seq order across instances, topics and partitions (what the per-key claim relies on).
     */
    Mono<Set<MessageId>> store(String consumer, List<InboxRecord> records, Ordering ordering);

    /** Whether {@code consumer} has at least {@code bound} live rows. */
    Mono<Boolean> backlogAtLeast(String consumer, long bound);

    /** The rows of {@code consumer}, as the claim loop's port, claimed without regard to keys. */
    default Consumer consumer(String consumer) {
        return consumer(consumer, Ordering.NONE, Integer.MAX_VALUE);
    }

    /**
     * The rows of {@code consumer}, as the claim loop's port, claimed with {@code ordering}: with {@link
     * Ordering#PER_KEY} a key's rows are leased one run at a time from its head, in {@code seq} order, at most {@code
     * keyRun} rows of a key per claim (the key is its bytes: a text key's UTF-8 or a binary key's own; rows without a
     * key are unordered).
     */
    Consumer consumer(String consumer, Ordering ordering, int keyRun);

    /**
     * The most rows of one key a per-key claim of {@code batchSize} rows takes for {@code concurrency} workers that
     * handle a key's rows one at a time: enough keys in every claim to keep every worker busy (at least one row).
     */
    static int keyRun(int batchSize, int concurrency) {
        return Math.max(1, (batchSize + concurrency - 1) / concurrency);
    }

    /** One consumer's rows. */
    interface Consumer extends LeasedQueue<ClaimedInboxMessage> {

        /** The consumer name, part of the inbox key. */
        String name();

        /**
         * Runs {@code work} and then {@code deliver} in one READ COMMITTED transaction on one connection, and commits
         * only if the delivery is {@code Applied}; any other outcome rolls {@code work}'s writes back, so a worker
         * that lost its lease never commits its effect. An error of {@code work} (or of the statement) rolls back
         * and is signalled as it is. READ COMMITTED, because under REPEATABLE READ PostgreSQL raises 40001 where the
         * classified transition re-checks the row.
         *
         * @param work the handler's local effect on the transaction's connection; must not commit, roll back or close
         */
        Mono<TransitionResult> deliverWithin(TransitionRequest deliver, Function<Connection, Mono<Void>> work);
    }

    /** A store on {@code connections} (a pooled factory whose connections use Dispatcher's schema). */
    static InboxStore r2dbc(ConnectionFactory connections) {
        return new R2dbcInboxStore(connections);
    }
}
