package dev.dispatcher.domain;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * One topic's current outage as one relay instance sees it, and the rule for the messages it holds back: a message
 * whose topic cannot take it is {@link DispatchResult.Deferred deferred} (its attempt given back, offered again
 * later, the cause kept as its last error), and once the topic has been missing for the missing-topic timeout it
 * is dead-lettered with that cause, so an operator can replay it once the topic exists.
 *
 * <p>The deferral grows with the outage, from {@link #MIN_DEFERRAL} to {@link #MAX_DEFERRAL}: a short outage costs
 * its messages little latency, a long one does not have every held-back row claimed and given back over and over.
 * While a topic is missing the deferral never reaches past its dead-letter deadline by more than
 * {@link #MIN_DEFERRAL}.
 *
 * @param topic the topic
 * @param error what the latest failure said (for example {@code topic 'orders' does not exist
 *     (UNKNOWN_TOPIC_OR_PARTITION)})
 * @param failingSince when this outage began: the first failure not followed by a success
 * @param missingSince since when the topic has been seen missing without a break, or null if it exists
 */
public record TopicOutage(String topic, String error, Instant failingSince, Instant missingSince) {

    /** The shortest deferral: a message of a failing topic is not offered again sooner. */
    public static final Duration MIN_DEFERRAL = Duration.ofSeconds(1);
    /** The longest deferral, reached after an outage of this length. */
    public static final Duration MAX_DEFERRAL = Duration.ofSeconds(30);

    public TopicOutage {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(failingSince, "failingSince");
    }

    /** Whether the topic is missing (not merely failing). */
    public boolean missing() {
        return missingSince != null;
    }

    /**
     * What becomes of a message of this topic at {@code now}: dead-lettered once the topic has been missing for at
     * least {@code missingTopicTimeout}, otherwise deferred.
     *
     * @param now the current time
     * @param missingTopicTimeout how long a topic may be missing before its messages are dead-lettered, positive
     */
    public DispatchResult result(Instant now, Duration missingTopicTimeout) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(missingTopicTimeout, "missingTopicTimeout");
        Duration failing = nonNegative(Duration.between(failingSince, now));
        if (missingSince == null) {
            return new DispatchResult.Deferred(clamp(failing), error + ", failing for " + seconds(failing));
        }
        Duration missingFor = nonNegative(Duration.between(missingSince, now));
        Duration left = missingTopicTimeout.minus(missingFor);
        if (left.isNegative() || left.isZero()) {
            return new DispatchResult.Failed(FailureKind.PERMANENT,
                    error + " for " + seconds(missingTopicTimeout) + " (the missing-topic timeout)");
        }
        Duration delay = clamp(failing.compareTo(left) < 0 ? failing : left);
        return new DispatchResult.Deferred(delay, error + ", missing for " + seconds(missingFor)
                + "; dead-lettered after " + seconds(missingTopicTimeout));
    }

    private static Duration clamp(Duration d) {
        if (d.compareTo(MIN_DEFERRAL) < 0) {
            return MIN_DEFERRAL;
        }
        return d.compareTo(MAX_DEFERRAL) > 0 ? MAX_DEFERRAL : d;
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }

    /** {@code d} in whole seconds (ISO-8601), or milliseconds below one second: short enough for a last error. */
    private static String seconds(Duration d) {
        return (d.compareTo(Duration.ofSeconds(1)) < 0 ? d.truncatedTo(ChronoUnit.MILLIS)
                : d.truncatedTo(ChronoUnit.SECONDS)).toString();
    }
}
