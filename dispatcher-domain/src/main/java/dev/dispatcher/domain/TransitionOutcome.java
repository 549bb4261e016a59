package dev.dispatcher.domain;

/**
 * What became of one requested {@link Transition}: exactly one of five outcomes, switched over exhaustively by
 * callers. Only {@link Applied} means this invocation wrote the transition; the others say the durable state was
 * written by someone else, or not at all, and must never be reported as this worker's success.
 */
public sealed interface TransitionOutcome {

    /** This invocation wrote the transition (or its own earlier, ambiguously committed write is what is stored). */
    record Applied() implements TransitionOutcome {
    }

    /** The row is live, but its lease token is no longer ours; nothing was written. */
    record StaleLease() implements TransitionOutcome {
    }

    /** The row was already {@code DELIVERED}, {@code COMPLETED} or {@code DEAD_LETTERED} before our write. */
    record Terminal() implements TransitionOutcome {
    }

    /** Our lease was valid when the statement started, but another writer committed first. */
    record ConcurrencyLost() implements TransitionOutcome {
    }

    /** The row does not exist, or was deleted during the race. */
    record Missing() implements TransitionOutcome {
    }

    TransitionOutcome APPLIED = new Applied();
    TransitionOutcome STALE_LEASE = new StaleLease();
    TransitionOutcome TERMINAL = new Terminal();
    TransitionOutcome CONCURRENCY_LOST = new ConcurrencyLost();
    TransitionOutcome MISSING = new Missing();

    /** The metric tag value: {@code applied|stale_lease|terminal|concurrency_lost|missing}. */
    default String tag() {
        return switch (this) {
            case Applied a -> "applied";
            case StaleLease s -> "stale_lease";
            case Terminal t -> "terminal";
            case ConcurrencyLost c -> "concurrency_lost";
            case Missing m -> "missing";
        };
    }
}
