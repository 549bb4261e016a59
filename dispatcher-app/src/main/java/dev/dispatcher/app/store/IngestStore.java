package dev.dispatcher.app.store;

import io.r2dbc.spi.ConnectionFactory;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Mono;

/**
 * Writes ingested messages to {@code outbox_message}: each message is inserted unless its id exists, in which
 * case the stored row is compared with it. A key's writer lock is held from before its rows take their {@code
 * seq} until they commit, so a key's rows commit in seq order whoever writes them.
 *
 * <p>Lazy; a write is one autocommit statement in the common case (a second one reads ids that a concurrent
 * writer was inserting), so it commits all its messages or none. A statement the server refuses (a timeout, a
 * lock wait over {@code lock_timeout}) wrote nothing. Errors are the driver's {@code R2dbcException}s, signalled.
 */
public interface IngestStore {

    /** One outcome per message, in the order given. */
    Mono<List<InsertOutcome>> write(List<IngestMessage> messages);

    /** A store on {@code connections} (a pooled factory whose connections use Dispatcher's schema). */
    static IngestStore r2dbc(ConnectionFactory connections) {
        return new R2dbcIngestStore(connections);
    }

    /**
     * A message's id was neither written nor found: its row was deleted (by retention) while the write ran.
     * Extremely rare, and not a success; the caller may retry.
     */
    final class RowRemovedException extends RuntimeException {

        private final UUID id;

        RowRemovedException(UUID id) {
            super("message " + id + " was being removed while it was ingested; retry", null, false, false);
            this.id = id;
        }

        public UUID id() {
            return id;
        }
    }
}
