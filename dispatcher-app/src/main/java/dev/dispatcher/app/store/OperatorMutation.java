package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import java.util.Objects;

/**
 * What became of an operator's single-message mutation: exactly one of five results, switched over exhaustively by
 * the API (which renders each as a response or an RFC 9457 problem). Never retried behind the operator's back.
 */
public sealed interface OperatorMutation {

    /** Applied and audited. */
    record Done(OutboxEntry after) implements OperatorMutation {
        public Done {
            Objects.requireNonNull(after, "after");
        }
    }

    /** No row with that id. */
    record NotFound() implements OperatorMutation {
    }

    /** The row is at another version than the operator's {@code If-Match}. */
    record VersionMismatch(OutboxEntry current, long expected) implements OperatorMutation {
    }

    /** The move from the row's status to {@code target} is not an operator's to make. */
    record IllegalMove(OutboxEntry current, MessageStatus target) implements OperatorMutation {
    }

    /** The row changed between the check and the guarded update (a lost race). */
    record ConcurrencyConflict(OutboxEntry current) implements OperatorMutation {
    }
}
