package dev.dispatcher.app.kafka;

import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.domain.FailureKind;
import java.util.Objects;

/**
 * A send error as {@link KafkaFailures} classified it, once, where it was seen: what it means for the record
 * ({@code kind}), the smallest thing that failed ({@code scope}), the metric's {@code cause}, and a short
 * description for {@code last_error}.
 *
 * @param kind permanent (dead-letter the record), transient (retry it with backoff) or unavailable (give the attempt
 *     back)
 * @param scope what failed: the record alone, its topic, or the broker itself
 * @param cause the {@code cause} tag of {@code dispatcher.publish.failures}
 * @param description what happened, kept as the row's {@code last_error}
 */
public record SendFailure(FailureKind kind, Scope scope, PublishFailureCause cause, String description) {

    public SendFailure {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(description, "description");
    }

    /** The smallest thing a failure belongs to, which decides what else it may hold back. */
    public enum Scope {
        /** This record only (too large, unserialisable, or an error nothing else explains). */
        RECORD,
        /** Every record of the record's topic (missing, offline, short of in-sync replicas, timing out). */
        TOPIC,
        /** Every record (the broker unreachable, the connection refused, the producer's buffer full). */
        BROKER
    }

    /** Whether this failure makes the record's topic unavailable (and so counts against the topic's breaker). */
    public boolean topicUnavailable() {
        return scope == Scope.TOPIC && kind == FailureKind.UNAVAILABLE;
    }

    /** Whether this failure says the broker itself is unavailable (and so counts against the relay's breaker). */
    public boolean brokerUnavailable() {
        return scope == Scope.BROKER && kind == FailureKind.UNAVAILABLE;
    }
}
