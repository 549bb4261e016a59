package dev.dispatcher.app.inbox;

import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Persistence of {@code inbox_message}: intake, leasing, classified transitions, retention.
 *
 * <p>All methods are lazy. Those without a {@link Connection} run one statement on a pooled connection in
 * autocommit; {@link #transition(Connection, String, TransitionRequest)} runs inside the caller's transaction.
 * Errors are the driver's {@code R2dbcException}s, signalled, never thrown.
 */
public interface InboxStore {

    /**
     * Stores {@code records} for {@code consumer} in one statement, skipping ids already stored. Emits the ids
     * this call inserted; every other input record is a duplicate.
     */
    Mono<Set<MessageId>> store(String consumer, List<ReceivedRecord> records);

    /** Claims up to {@code limit} claimable rows of {@code consumer} for {@code owner}, with a lease of {@code lease}. */
    Mono<List<LeasedInboxMessage>> claimBatch(String consumer, String owner, int limit, Duration lease);

    /**
     * Writes transitions of {@code consumer}'s rows in one statement and classifies each; requests for the same id
     * are de-duplicated (the first wins), one result per distinct id in first-occurrence order.
     */
    Mono<List<TransitionResult>> transition(String consumer, List<TransitionRequest> requests);

    /** Writes one transition on {@code connection}, inside the caller's transaction, and classifies it. */
    Mono<TransitionResult> transition(Connection connection, String consumer, TransitionRequest request);

    /** Deletes up to {@code limit} rows completed more than {@code age} ago; emits how many. */
    Mono<Long> purgeCompleted(Duration age, int limit);

    /** Whether {@code consumer} has at least {@code bound} live rows. */
    Mono<Boolean> backlogAtLeast(String consumer, long bound);

    /** Live rows of the whole inbox. */
    Mono<Backlog> backlog();

    /** A store on {@code connections} (a pooled factory whose connections use Dispatcher's schema). */
    static InboxStore r2dbc(ConnectionFactory connections) {
        return new R2dbcInboxStore(connections);
    }
}
