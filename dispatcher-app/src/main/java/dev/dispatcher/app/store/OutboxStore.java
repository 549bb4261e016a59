package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Persistence of {@code outbox_message} for the relay.
 *
 * <p>All methods are lazy (nothing runs until subscription) and each runs one statement on a pooled connection
 * in auto-commit: no transaction stays open while a caller publishes. Errors are the driver's
 * {@code R2dbcException}s, signalled, never thrown.
 */
public interface OutboxStore extends LeasedQueue<ClaimedOutboxMessage> {

    /**
     * Claims up to {@code limit} claimable rows for {@code owner} in one statement, honouring {@code ordering}.
     * Increments each row's attempts, gives it a fresh lease token and a lease of {@code lease} from database
     * time. An empty list means nothing is claimable now.
     */
    default Mono<List<ClaimedOutboxMessage>> claimBatch(String owner, int limit, Duration lease, Ordering ordering) {
        return claimBatch(owner, limit, Long.MAX_VALUE, lease, ordering);
    }

    /**
     * {@link #claimBatch(String, int, Duration, Ordering)} within a payload byte budget: in {@code seq} order the
     * claim stops adding rows once their payloads would pass {@code maxBytes}; a first row larger than that is still
     * claimed alone. Per key, what is claimed stays a contiguous run from the key's head.
     */
    Mono<List<ClaimedOutboxMessage>> claimBatch(String owner, int limit, long maxBytes, Duration lease,
            Ordering ordering);

    /** Claims with the ordering this store was created with (see {@link #r2dbc(ConnectionFactory, Ordering)}). */
    @Override
    Mono<List<ClaimedOutboxMessage>> claim(String owner, int limit, Duration lease);

    /** {@link #claim(String, int, Duration)} within a payload byte budget. */
    @Override
    Mono<List<ClaimedOutboxMessage>> claim(String owner, int limit, long maxBytes, Duration lease);

    @Override
    default Queue queue() {
        return Queue.OUTBOX;
    }

    /**
     * Writes a batch of transitions in one statement and classifies each. Requests for the same id are
     * de-duplicated (the first wins), so the result holds one entry per distinct id, in first-occurrence order.
     */
    @Override
    Mono<List<TransitionResult>> transition(List<TransitionRequest> requests);

    /**
     * Deletes up to {@code limit} rows in terminal {@code status} that finished more than {@code age} ago.
     * Returns how many it deleted.
     */
    @Override
    Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit);

    /** Current backlog figures. */
    @Override
    Mono<Backlog> backlog();

    /**
     * A number never below the count of live rows, at the cost of two index descents whatever the backlog
     * ({@code OutboxSql.BACKLOG_BOUND}); {@link #backlog()} counts the rows.
     */
    Mono<Long> backlogUpperBound();

    /** A store on {@code connections} (a pooled factory whose connections use Dispatcher's schema), per-key. */
    static OutboxStore r2dbc(ConnectionFactory connections) {
        return r2dbc(connections, Ordering.PER_KEY);
    }

    /** A store whose {@link #claim} keeps {@code ordering}. */
    static OutboxStore r2dbc(ConnectionFactory connections, Ordering ordering) {
        return new R2dbcOutboxStore(connections, ordering);
    }
}
