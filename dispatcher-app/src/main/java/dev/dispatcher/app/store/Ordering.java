package dev.dispatcher.app.store;

/**
 * How a leased queue hands its messages on: per key ({@code per-key}), per key across the outbox's topics ({@code
 * per-key-across-topics}) or not at all ({@code none}); the relay's {@code dispatcher.relay.ordering} and each inbox
 * consumer's {@code ordering} (which knows {@code per-key} and {@code none} only: a consumer's key is ordered across
 * its topics already).
 */
public enum Ordering {
    /**
     * At most one lease per unit of order at a time, from its head, in seq order. The outbox's unit is {@code (topic,
     * key)}: a key's rows in one topic never wait for its rows in another. The inbox's is a consumer's key.
     */
    PER_KEY,
    /** The outbox's key alone is the unit: a key's rows in every topic go in seq order, one run at a time. */
    PER_KEY_ACROSS_TOPICS,
    /** Any row in seq order, keys ignored: the fastest mode. */
    NONE;

    /** Whether rows are handed on one run per unit at a time ({@link #PER_KEY} or {@link #PER_KEY_ACROSS_TOPICS}). */
    public boolean perKey() {
        return this != NONE;
    }
}
