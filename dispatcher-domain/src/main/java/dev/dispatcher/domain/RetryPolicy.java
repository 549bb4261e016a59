package dev.dispatcher.domain;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.random.RandomGenerator;
import dev.dispatcher.domain.InvalidRetryPolicyException.Setting;

/**
 * Exponential backoff with jitter, bounded by a maximum delay, and an attempt limit.
 *
 * <p>The ceiling for attempt {@code n} (1-based) is {@code min(maxDelay, initialDelay x multiplier^(n-1))}; the
 * delay is drawn below it according to the {@link Jitter}. The random source is injected, so tests are
 * deterministic; a {@code RandomGenerator} that is not thread-safe must not be shared across threads.
 */
public final class RetryPolicy {

    public static final Duration DEFAULT_INITIAL_DELAY = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(5);
    public static final double DEFAULT_MULTIPLIER = 2.0;
    public static final Jitter DEFAULT_JITTER = Jitter.FULL;
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    /** Longest accepted max delay. */
    public static final Duration MAX_DELAY_LIMIT = Duration.ofDays(365);
    /** Most accepted attempts. */
    public static final int MAX_ATTEMPTS_LIMIT = 1000;

    private final Duration initialDelay;
    private final Duration maxDelay;
    private final double multiplier;
    private final Jitter jitter;
    private final int maxAttempts;
    private final RandomGenerator random;

    private RetryPolicy(
            Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter, int maxAttempts,
            RandomGenerator random) {
        this.initialDelay = initialDelay;
        this.maxDelay = maxDelay;
        this.multiplier = multiplier;
        this.jitter = jitter;
        this.maxAttempts = maxAttempts;
        this.random = random;
    }

    /**
     * A validated policy.
     *
     * @throws InvalidRetryPolicyException naming the setting and the bad value: initial delay at least 1 ms and at
     *     most max, max delay at most {@link #MAX_DELAY_LIMIT}, multiplier at least 1, max attempts 1 to
     *     {@link #MAX_ATTEMPTS_LIMIT}
     */
    public static RetryPolicy of(
            Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter, int maxAttempts,
            RandomGenerator random) {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        Objects.requireNonNull(jitter, "jitter");
        Objects.requireNonNull(random, "random");
        // Delays are computed in whole milliseconds: below 1 ms a decorrelated delay would round to zero, and a
        // cap beyond a year would overflow the arithmetic long before it could matter to a retry.
        if (initialDelay.compareTo(Duration.ofMillis(1)) < 0) {
            throw new InvalidRetryPolicyException(Setting.INITIAL_DELAY, "must be at least 1ms", initialDelay);
        }
        if (maxDelay.compareTo(MAX_DELAY_LIMIT) > 0) {
            throw new InvalidRetryPolicyException(Setting.MAX_DELAY, "must be at most 365d", maxDelay);
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new InvalidRetryPolicyException(Setting.MAX_DELAY, "must be at least the initial delay", maxDelay);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new InvalidRetryPolicyException(Setting.MULTIPLIER, "must be a finite number of at least 1",
                    multiplier);
        }
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
            throw new InvalidRetryPolicyException(Setting.MAX_ATTEMPTS, "must be between 1 and " + MAX_ATTEMPTS_LIMIT,
                    maxAttempts);
        }
        return new RetryPolicy(initialDelay, maxDelay, multiplier, jitter, maxAttempts, random);
    }

    /** The policy with every default and the given random source. */
    public static RetryPolicy defaults(RandomGenerator random) {
        return of(DEFAULT_INITIAL_DELAY, DEFAULT_MAX_DELAY, DEFAULT_MULTIPLIER, DEFAULT_JITTER, DEFAULT_MAX_ATTEMPTS,
                random);
    }

    /** The un-jittered, capped exponential bound for attempt {@code attempt} (1-based). */
    public Duration ceiling(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, but was " + attempt);
        }
        double millis = initialDelay.toMillis() * Math.pow(multiplier, attempt - 1);
        long max = maxDelay.toMillis();
        return Duration.ofMillis(Double.isFinite(millis) && millis < max ? (long) millis : max);
    }

    /** The delay before the attempt after attempt {@code attempt}: within {@code [0, maxDelay]}. */
    public Duration delayAfter(int attempt) {
        long ceiling = ceiling(attempt).toMillis();
        long delay = switch (jitter) {
            case FULL -> random.nextLong(ceiling + 1);
            case DECORRELATED -> {
                long low = Math.min(initialDelay.toMillis(), maxDelay.toMillis());
                long high = Math.min(maxDelay.toMillis(), Math.max(low, ceiling * 3L));
                yield low + random.nextLong(high - low + 1);
            }
            case NONE -> ceiling;
        };
        return Duration.ofMillis(delay);
    }

    /** When the next attempt may run, counted from {@code now}. */
    public Instant nextAttemptAt(int attempt, Instant now) {
        return now.plus(delayAfter(attempt));
    }

    /** Whether {@code attempts} spent attempts leave no retry. */
    public boolean isExhausted(int attempts) {
        return attempts >= maxAttempts;
    }

    public Duration initialDelay() {
        return initialDelay;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    public double multiplier() {
        return multiplier;
    }

    public Jitter jitter() {
        return jitter;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    @Override
    public String toString() {
        return "RetryPolicy[initialDelay=" + initialDelay + ", maxDelay=" + maxDelay + ", multiplier=" + multiplier
                + ", jitter=" + jitter + ", maxAttempts=" + maxAttempts + "]";
    }
}
