package dev.dispatcher.app.store;

/** How the relay orders messages: per key ({@code per-key}) or not at all ({@code none}). */
public enum Ordering {
    /** At most one lease per key at a time, from its head, in seq order. */
    PER_KEY,
    /** Any row in seq order, keys ignored: the fastest mode. */
    NONE
}
