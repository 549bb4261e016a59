package dev.dispatcher.domain;

import java.util.Locale;

/**
 * Durable status of an outbox or inbox message.
 *
 * <p>{@code PENDING} and {@code RETRY_SCHEDULED} are live: a worker may lease them. {@code DELIVERED} (outbox),
 * {@code COMPLETED} (inbox) and {@code DEAD_LETTERED} are terminal and absorb every lease transition; only an
 * operator's {@link StatusTransition#REPLAY} leaves them. The legal moves are listed once, in {@link StatusTransition}.
 */
public enum MessageStatus {
    PENDING,
    RETRY_SCHEDULED,
    DELIVERED,
    COMPLETED,
    DEAD_LETTERED;

    /** Whether this status absorbs lease transitions. */
    public boolean isTerminal() {
        return this == DELIVERED || this == COMPLETED || this == DEAD_LETTERED;
    }

    /** Whether a worker may lease a message in this status. */
    public boolean isLeasable() {
        return !isTerminal();
    }

    /** Lower-case form used as the {@code durable_status} metric tag. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a stored status name.
     *
     * @throws IllegalArgumentException naming the unknown value
     */
    public static MessageStatus parse(String stored) {
        try {
            return valueOf(stored);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("unknown message status '" + stored + "'", e);
        }
    }
}
