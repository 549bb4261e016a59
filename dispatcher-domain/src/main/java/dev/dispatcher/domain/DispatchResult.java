package dev.dispatcher.domain;

import java.time.Duration;
import java.util.Objects;

/** What happened when a worker tried to hand one message on (publish it to Kafka, or run its inbox handler). */
public sealed interface DispatchResult {

    /**
     * The destination confirmed the message: Kafka acknowledged it ({@link #PUBLISHED}), or the handler completed
     * ({@link #HANDLED}).
     */
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

    /**
     * The message's destination cannot take it now (its topic is missing or unavailable): the attempt is given back,
     * and the message is offered again after {@code delay}, with {@code error} kept as its last error. Whether the
     * message was handed off or held back because its topic was already known to be failing makes no difference.
     *
     * @param delay how long the message stays invisible, not negative
     * @param error why, kept as {@code last_error}
     */
    record Deferred(Duration delay, String error) implements DispatchResult {
        public Deferred {
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(error, "error");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("deferral must not be negative, but was " + delay);
            }
        }
    }

    /** The relay's success: Kafka acknowledged the record. */
    DispatchResult PUBLISHED = new Published();

    /**
     * The inbox's success: the consumer's handler completed. The same outcome as {@link #PUBLISHED} for the decision
     * (the message is delivered); a name of its own so the inbox does not say it published anything.
     */
    DispatchResult HANDLED = PUBLISHED;
}
