package dev.dispatcher.app.store;

/**
 * How a leased queue hands its messages on: per key ({@code per-key}) or not at all ({@code none}); the relay's
 * {@code dispatcher.relay.ordering} and each inbox consumer's {@code ordering}.
 */
public enum Ordering {
    /** At most one lease per key at a time, from its head, in seq order. */
    PER_KEY,
    /** Any row in seq order, keys ignored: the fastest mode. */
    NONE
}
