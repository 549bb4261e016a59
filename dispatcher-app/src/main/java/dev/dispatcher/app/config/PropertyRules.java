package dev.dispatcher.app.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Validation support of the configuration blocks: every failure is an {@link IllegalArgumentException} whose
 * message names the full property and the bad value ({@code dispatcher.relay.batch-size must be between 1 and
 * 10000, but was 0}), which Spring Boot reports when it refuses to start.
 */
final class PropertyRules {

    private PropertyRules() {
    }

    static final String MASK = "******";

    /** {@code relativeName} is the property below {@code dispatcher.}, such as {@code relay.batch-size}. */
    static IllegalArgumentException invalid(String relativeName, String rule, Object value) {
        return new IllegalArgumentException(
                DispatcherProperties.PREFIX + "." + relativeName + " " + rule + ", but was " + value);
    }

    static void requireBetween(String relativeName, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(relativeName, "must be between " + min + " and " + max, value);
        }
    }

    static void requireBetween(String relativeName, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, DispatcherProperties.PREFIX + "." + relativeName);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw invalid(relativeName, "must be between " + format(min) + " and " + format(max), format(value));
        }
    }

    static void requirePositive(String relativeName, Duration value) {
        Objects.requireNonNull(value, DispatcherProperties.PREFIX + "." + relativeName);
        if (value.isNegative() || value.isZero()) {
            throw invalid(relativeName, "must be positive", format(value));
        }
    }

    static String quoted(@Nullable String value) {
        return value == null ? "absent" : "'" + value + "'";
    }

    static List<String> upperCase(@Nullable List<String> values) {
        if (values == null) {
            return List.of();
        }
        List<String> result = new ArrayList<>(values.size());
        for (String value : values) {
            result.add(value == null ? null : value.trim().toUpperCase(Locale.ROOT));
        }
        return Collections.unmodifiableList(result);
    }

    static <T> T orDefault(@Nullable T value, T fallback) {
        return value == null ? fallback : value;
    }

    /** A duration the way it is written in configuration: {@code 30s}, {@code 10ms}, {@code 1h}. */
    static String format(Duration value) {
        if (value.isZero()) {
            return "0s";
        }
        long nanos = value.toNanosPart();
        if (nanos % 1_000_000 != 0) {
            return value.toNanos() + "ns";
        }
        if (nanos != 0) {
            return value.toMillis() + "ms";
        }
        long seconds = value.getSeconds();
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }
}
