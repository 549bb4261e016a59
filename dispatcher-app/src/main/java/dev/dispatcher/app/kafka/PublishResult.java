package dev.dispatcher.app.kafka;

import java.util.Objects;

/** What became of one record handed to a {@link RecordPublisher}. */
public sealed interface PublishResult {

    /** Kafka acknowledged the record ({@code acks=all}). */
    record Sent() implements PublishResult {
    }

    /** The record failed, or was refused before hand-off because its topic is known to be failing. */
    record Failed(SendFailure failure) implements PublishResult {
        public Failed {
            Objects.requireNonNull(failure, "failure");
        }
    }

    /**
     * The record was not handed off because its topic cannot take it yet but is about to (the brokers are creating it
     * on first use): a routine wait, not a failure; offer it again shortly.
     */
    record NotYet(String reason) implements PublishResult {
        public NotYet {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** The record was not handed off (an earlier record of its lane failed, or the broker was unreachable). */
    record NotSent(String reason) implements PublishResult {
        public NotSent {
            Objects.requireNonNull(reason, "reason");
        }
    }

    PublishResult SENT = new Sent();
}
