package dev.dispatcher.domain;

import java.util.Locale;

/** How retry delays are randomised so that failed messages do not all come back at once. */
public enum Jitter {
    /** Uniform in {@code [0, ceiling]}: spreads retries most. */
    FULL,
    /** Uniform in {@code [initial, 3 x this attempt's ceiling]}, capped at the max delay: never retries at once. */
    DECORRELATED,
    /** The exponential ceiling itself: deterministic, for tests and debugging. */
    NONE;

    /**
     * Parses a configuration value ({@code full}, {@code decorrelated}, {@code none}; any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Jitter parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("jitter must be one of full, decorrelated, none, but was '" + value + "'");
        }
    }
}
