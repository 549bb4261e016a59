package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The port of the leased-queue kernel: one leased table (the outbox, or one inbox consumer's rows), as the claim
 * loop sees it. Implemented for both tables by this package; the statements are {@code dev.dispatcher.sql}'s.
 *
 * <p>All methods are lazy and each runs one statement on a pooled connection in autocommit: no transaction stays
 * open while a worker publishes or calls a handler. Errors are the driver's, signalled, never thrown; classify
 * them with {@link DatabaseFailures}.
 *
 * @param <M> the claimed row type
 */
public interface LeasedQueue<M extends Claimed> {

    /** Which queue this is (metrics, the success status). */
    Queue queue();

    /**
     * Claims up to {@code limit} claimable rows for {@code owner} in one statement ({@code FOR UPDATE SKIP LOCKED}):
     * the batch gets one fresh lease token, each row a lease of {@code lease} from database time and one more
     * attempt. An empty list means nothing is claimable now.
     */
    Mono<List<M>> claim(String owner, int limit, Duration lease);

    /**
     * {@link #claim(String, int, Duration)} taking fewer rows when their payloads are large: in claim order it stops
     * adding rows once their {@linkplain Claimed#payloadBytes() payload bytes} would pass {@code maxBytes}, and a
     * first row larger than that is still claimed, alone. By default a queue claims by count alone (the inbox, whose
     * intake bounds its rows by {@code max-backlog}).
     */
    default Mono<List<M>> claim(String owner, int limit, long maxBytes, Duration lease) {
        return claim(owner, limit, lease);
    }

    /**
     * Writes a batch of lease transitions and classifies each into a sealed outcome: one guarded UPDATE for the
     * Deliver requests of one claimed batch (two or more), one classified statement for the other requests and for the rows that
     * UPDATE did not write (so a fully published batch is one statement). Requests for the same id are
     * de-duplicated (the first wins): one result per distinct id, in first-occurrence order. Safe to repeat after an
     * ambiguous failure: a lost commit acknowledgement is recognised as our own write.
     */
    Mono<List<TransitionResult>> transition(List<TransitionRequest> requests);

    /** Live rows and the age of the oldest. */
    Mono<Backlog> backlog();

    /** Deletes up to {@code limit} rows in terminal {@code status} that finished more than {@code age} ago. */
    Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit);
}
