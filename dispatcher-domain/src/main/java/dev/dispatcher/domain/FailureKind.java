package dev.dispatcher.domain;

/**
 * How a failed dispatch is classified, once, where the error is seen.
 */
public enum FailureKind {
    /** The record itself can never succeed (too large, unserialisable, invalid topic, not authorised): dead-letter at once. */
    PERMANENT,
    /** May succeed later: retry with backoff until the attempt limit. */
    TRANSIENT,
    /**
     * The destination is unavailable (the broker unreachable, a topic missing, offline or short of replicas): give the
     * attempt back.
     */
    UNAVAILABLE
}
