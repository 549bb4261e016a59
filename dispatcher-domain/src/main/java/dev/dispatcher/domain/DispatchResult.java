package dev.dispatcher.domain;

import java.util.Objects;

/** What happened when a worker tried to hand one message on (publish it to Kafka, or run its inbox handler). */
public sealed interface DispatchResult {

    /** The destination confirmed the message. */
    record Published() implements DispatchResult {
    }

    /**
     * The attempt failed.
     *
     * @param kind how the failure was classified
     * @param error a short description kept as {@code last_error}
     */
    record Failed(FailureKind kind, String error) implements DispatchResult {
        public Failed {
            Objects.requireNonNull(kind, "kind");
            error = error == null ? "unknown error" : error;
        }
    }

    /**
     * The worker did not try (shutdown, circuit open, an earlier message of the same key failed).
     *
     * @param reason why not
     */
    record NotAttempted(String reason) implements DispatchResult {
        public NotAttempted {
            Objects.requireNonNull(reason, "reason");
        }
    }

    DispatchResult PUBLISHED = new Published();
}
