package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
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
public interface OutboxStore {

    /**
     * Claims up to {@code limit} claimable rows for {@code owner} in one statement, honouring {@code ordering}.
     * Increments each row's attempts, gives it a fresh lease token and a lease of {@code lease} from database
     * time. An empty list means nothing is claimable now.
     */
    Mono<List<ClaimedMessage>> claimBatch(String owner, int limit, Duration lease, Ordering ordering);

    /**
     * Writes a batch of transitions in one statement and classifies each. Requests for the same id are
     * de-duplicated (the first wins), so the result holds one entry per distinct id, in first-occurrence order.
     */
    Mono<List<TransitionResult>> transition(List<TransitionRequest> requests);

    /**
     * Deletes up to {@code limit} rows in terminal {@code status} that finished more than {@code age} ago.
     * Returns how many it deleted.
     */
    Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit);

    /** Current backlog figures. */
    Mono<Backlog> backlog();

    /** A store on {@code connections} (a pooled factory whose connections use Dispatcher's schema). */
    static OutboxStore r2dbc(ConnectionFactory connections) {
        return new R2dbcOutboxStore(connections);
    }
}
