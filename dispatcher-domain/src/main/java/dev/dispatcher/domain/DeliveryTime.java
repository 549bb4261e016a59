package dev.dispatcher.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a new message may be published first: as soon as it commits, at an instant ({@code deliverAt}), or after a
 * delay ({@code delay}). One rule for every way in (HTTP ingest and both client writers).
 *
 * <p>A delivery time is resolved once, when the message is written, into a delay in whole milliseconds
 * ({@link #delayMillis}) that SQL adds to the database clock at the insert ({@code visible_after =
 * clock_timestamp() + delay}), so the relay, which compares {@code visible_after} with database time, never
 * publishes early because the writer's transaction started long before the write, and instances with skewed
 * clocks agree. An instant is turned into that delay with the writer's clock, the only clock that knows what the
 * caller meant by it.
 *
 * <p>Rules: an instant may lie in the past by at most {@link #MAX_PAST_SKEW} (a caller's "now" on a slightly
 * different clock), which resolves to no delay; a delay must not be negative; either may reach at most the
 * configured maximum delay ahead. A violation is an {@link InvalidDeliveryTimeException} naming the field.
 */
public sealed interface DeliveryTime {

    /** How far in the past an instant may lie: a caller's clock may run a little behind ours. */
    Duration MAX_PAST_SKEW = Duration.ofSeconds(30);

    /** The default of the configured maximum delay ({@code dispatcher.ingest.max-delay}, the writers' default). */
    Duration DEFAULT_MAX_DELAY = Duration.ofDays(7);

    /** The field names of the two forms, as the HTTP API and the writers' builders spell them. */
    String DELIVER_AT = "deliverAt";
    String DELAY = "delay";

    /** Published as soon as the row commits. */
    record Immediately() implements DeliveryTime {
    }

    /** Not published before {@code instant}. */
    record At(Instant instant) implements DeliveryTime {
        public At {
            Objects.requireNonNull(instant, DELIVER_AT);
        }
    }

    /** Not published before {@code delay} has passed since the write. */
    record After(Duration delay) implements DeliveryTime {
        public After {
            Objects.requireNonNull(delay, DELAY);
        }
    }

    /** No delay. */
    static DeliveryTime immediately() {
        return new Immediately();
    }

    /**
     * The delivery time of a message that sets {@code deliverAt}, {@code delay}, or neither (both {@code null}).
     *
     * @throws InvalidDeliveryTimeException when both are set
     */
    static DeliveryTime of(Instant deliverAt, Duration delay) {
        if (deliverAt != null && delay != null) {
            throw new InvalidDeliveryTimeException(DELAY, "set deliverAt or delay, not both");
        }
        return deliverAt != null ? new At(deliverAt) : delay != null ? new After(delay) : immediately();
    }

    /**
     * The delay to add to the database clock at the insert, in whole milliseconds rounded up (never early); 0 for
     * none.
     *
     * @param now the writer's clock
     * @param maxDelay the configured maximum delay (positive)
     * @throws InvalidDeliveryTimeException naming {@code deliverAt} or {@code delay} when the rules above are broken
     */
    default long delayMillis(Instant now, Duration maxDelay) {
        Duration delay = switch (this) {
            case Immediately i -> Duration.ZERO;
            case After after -> {
                if (after.delay().isNegative()) {
                    throw new InvalidDeliveryTimeException(DELAY, "delay must not be negative, but was "
                            + after.delay());
                }
                yield requireAtMost(DELAY, after.delay(), maxDelay, after.delay().toString());
            }
            case At at -> {
                Duration ahead = Duration.between(now, at.instant());
                if (ahead.compareTo(MAX_PAST_SKEW.negated()) < 0) {
                    throw new InvalidDeliveryTimeException(DELIVER_AT, "deliverAt must not lie more than "
                            + MAX_PAST_SKEW + " in the past, but was " + at.instant() + " (now " + now + ")");
                }
                yield ahead.isNegative() ? Duration.ZERO
                        : requireAtMost(DELIVER_AT, ahead, maxDelay, at.instant() + " (now " + now + ")");
            }
        };
        long millis = delay.toMillis();
        return delay.minusMillis(millis).isZero() ? millis : millis + 1;
    }

    private static Duration requireAtMost(String field, Duration delay, Duration maxDelay, String shown) {
        if (delay.compareTo(maxDelay) > 0) {
            throw new InvalidDeliveryTimeException(field, field + " must be at most " + maxDelay
                    + " ahead (the configured maximum delay), but was " + shown);
        }
        return delay;
    }

    /** A delivery time that breaks a rule; {@link #field()} names the field at fault. */
    final class InvalidDeliveryTimeException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        private final String field;

        InvalidDeliveryTimeException(String field, String message) {
            super(message);
            this.field = field;
        }

        /** {@code deliverAt} or {@code delay}. */
        public String field() {
            return field;
        }
    }
}
