package dev.dispatcher.domain;

import java.time.Duration;
import java.util.Objects;

/**
 * A change a worker asks for on a message it leased. Written only while the row still carries the worker's lease
 * token and is live; nothing here leaves a terminal status (operator replay is {@link StatusTransition#REPLAY}).
 */
public sealed interface Transition {

    /** Mark the message done: {@code DELIVERED} in the outbox, {@code COMPLETED} in the inbox. */
    record Deliver() implements Transition {
    }

    /**
     * Give the lease back and make the message visible again after {@code delay} (added to database time).
     *
     * @param delay backoff before the next attempt, not negative
     * @param error why this attempt failed, kept as {@code last_error}
     */
    record ScheduleRetry(Duration delay, String error) implements Transition {
        public ScheduleRetry {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("retry delay must not be negative, but was " + delay);
            }
        }
    }

    /** Stop trying: the message is dead-lettered with {@code reason} as its last error. */
    record DeadLetter(String reason) implements Transition {
        public DeadLetter {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Extend the lease to {@code duration} from database time. Does not change the row version. */
    record RenewLease(Duration duration) implements Transition {
        public RenewLease {
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("lease duration must be positive, but was " + duration);
            }
        }
    }

    /**
     * Give the lease and the attempt back without a status change. The plain form ({@link #Release()}: shutdown, a
     * blocked key run, a message never tried) leaves {@code visible_after} and {@code last_error} as they were;
     * with a {@code delay} the message becomes visible again only that long after database time, and with an
     * {@code error} that error is kept as {@code last_error} (a destination that could not take the message: an
     * unavailable topic or broker).
     *
     * @param delay how long the message stays invisible, not negative; zero leaves {@code visible_after} alone
     * @param error why the message was given back, kept as {@code last_error}; null keeps the last one
     */
    record Release(Duration delay, String error) implements Transition {
        public Release {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("release delay must not be negative, but was " + delay);
            }
        }

        /** The plain release: no delay, {@code last_error} unchanged. */
        public Release() {
            this(Duration.ZERO, null);
        }
    }

    /** The metric tag value: {@code deliver|retry|dead_letter|renew|release}. */
    default String tag() {
        return switch (this) {
            case Deliver d -> "deliver";
            case ScheduleRetry r -> "retry";
            case DeadLetter d -> "dead_letter";
            case RenewLease r -> "renew";
            case Release r -> "release";
        };
    }

    /** The status this transition writes when applied to a row in {@code current} status of {@code queue}. */
    default MessageStatus targetStatus(Queue queue, MessageStatus current) {
        return switch (this) {
            case Deliver d -> queue.successStatus();
            case ScheduleRetry r -> MessageStatus.RETRY_SCHEDULED;
            case DeadLetter d -> MessageStatus.DEAD_LETTERED;
            case RenewLease r -> current;
            case Release r -> current;
        };
    }

    /** Whether the worker's lease ends with this transition (everything but {@link RenewLease}). */
    default boolean endsLease() {
        return !(this instanceof RenewLease);
    }
}
