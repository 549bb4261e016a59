package dev.dispatcher.app.queue;

import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Where a claim loop hands the messages it has decided to dead-letter before it writes their transitions: the relay's
 * and the inbox's dead-letter topics. The loop writes a batch's transitions only once {@link #handOn} completes, so a
 * message published to a dead-letter topic turns {@code DEAD_LETTERED} only after the topic has it; the batch's
 * leases stay renewed meanwhile.
 *
 * @param <M> the claimed row type
 */
@FunctionalInterface
public interface DeadLetterPort<M> {

    /**
     * Hands {@code deadLetters} on; completes when each was taken or refused. Must not error for a message that
     * could not be handed on (its row is then dead-lettered in the table alone); an error is logged by the loop and
     * the transitions are written anyway.
     */
    Mono<Void> handOn(List<DeadLetter<M>> deadLetters);

    /** A port that takes nothing: no dead-letter topic. */
    static <M> DeadLetterPort<M> none() {
        return deadLetters -> Mono.empty();
    }

    /**
     * A message the loop will dead-letter, and why.
     *
     * @param message the claimed row
     * @param reason the dead letter's reason, as its row's {@code last_error} will say
     */
    record DeadLetter<M>(M message, String reason) {
        public DeadLetter {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
