package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageStatus;
import java.util.Objects;

/**
 * What became of an operator's single-message mutation of a row of type {@code E} ({@link OutboxOperatorRow},
 * {@link InboxEntry}): exactly one of five results, switched over exhaustively by the API (which renders each as a
 * response or an RFC 9457 problem). Never retried behind the operator's back.
 */
public sealed interface OperatorMutation<E> {

    /** Applied and audited. */
    record Done<E>(E after) implements OperatorMutation<E> {
        public Done {
            Objects.requireNonNull(after, "after");
        }
    }

    /** No row with that id. */
    record NotFound<E>() implements OperatorMutation<E> {
    }

    /** The row is at another version than the operator's {@code If-Match}. */
    record VersionMismatch<E>(E current, long expected) implements OperatorMutation<E> {
    }

    /**
     * The move from the row's status to {@code target} is not an operator's to make, for the reason given, a phrase
     * that follows the message's name ("is COMPLETED: an operator cannot move it to DEAD_LETTERED").
     */
    record IllegalMove<E>(E current, MessageStatus target, String reason) implements OperatorMutation<E> {
    }

    /** The row changed between the check and the guarded update (a lost race). */
    record ConcurrencyConflict<E>(E current) implements OperatorMutation<E> {
    }
}
