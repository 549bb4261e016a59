package dev.dispatcher.domain;

import java.util.Objects;

/**
 * The outcome of one requested transition together with the row it refers to.
 *
 * @param outcome what happened
 * @param entry for {@code Applied} the updated row; for {@code StaleLease} and {@code Terminal} the durable row;
 *     for {@code ConcurrencyLost} the durable winner; for {@code Missing} our last leased snapshot
 */
public record TransitionResult(TransitionOutcome outcome, MessageState entry) {

    public TransitionResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(entry, "entry");
    }

    /** Whether this invocation wrote the transition. */
    public boolean isApplied() {
        return outcome instanceof TransitionOutcome.Applied;
    }

    /**
     * The {@code durable_status} metric tag: the entry's status, or {@code absent} when the row is missing.
     */
    public String durableStatusTag() {
        return outcome instanceof TransitionOutcome.Missing ? "absent" : entry.status().tag();
    }
}
