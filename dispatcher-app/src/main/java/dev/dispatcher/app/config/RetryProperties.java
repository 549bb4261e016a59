package dev.dispatcher.app.config;

import static dev.dispatcher.app.config.PropertyRules.format;
import static dev.dispatcher.app.config.PropertyRules.invalid;
import static dev.dispatcher.app.config.PropertyRules.orDefault;

import dev.dispatcher.domain.InvalidRetryPolicyException;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

/**
 * {@code dispatcher.retry.*} (and {@code dispatcher.inbox.consumers[i].retry.*}): backoff between attempts of a
 * failed send or handler, and the attempt limit before dead-lettering. The rules are the domain's
 * {@link RetryPolicy#of}; {@link #toPolicy} checks them once and names the property that breaks one.
 *
 * @param initialDelay the ceiling of the first retry delay
 * @param maxDelay the cap of every delay
 * @param multiplier growth of the ceiling per attempt
 * @param jitter how a delay is drawn below its ceiling ({@code full}, {@code decorrelated}, {@code none})
 * @param maxAttempts attempts before a message is dead-lettered
 */
public record RetryProperties(Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter,
        int maxAttempts) {

    public static final Duration DEFAULT_INITIAL_DELAY = RetryPolicy.DEFAULT_INITIAL_DELAY;
    public static final Duration DEFAULT_MAX_DELAY = RetryPolicy.DEFAULT_MAX_DELAY;
    public static final double DEFAULT_MULTIPLIER = RetryPolicy.DEFAULT_MULTIPLIER;
    public static final Jitter DEFAULT_JITTER = RetryPolicy.DEFAULT_JITTER;
    public static final int DEFAULT_MAX_ATTEMPTS = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

    public RetryProperties {
        Objects.requireNonNull(initialDelay, "dispatcher.retry.initial-delay");
        Objects.requireNonNull(maxDelay, "dispatcher.retry.max-delay");
        Objects.requireNonNull(jitter, "dispatcher.retry.jitter");
    }

    /** The binding constructor: an absent value takes its default. */
    @ConstructorBinding
    public RetryProperties(
            @Nullable Duration initialDelay,
            @Nullable Duration maxDelay,
            @Nullable Double multiplier,
            @Nullable Jitter jitter,
            @Nullable Integer maxAttempts) {
        this(
                orDefault(initialDelay, DEFAULT_INITIAL_DELAY),
                orDefault(maxDelay, DEFAULT_MAX_DELAY),
                orDefault(multiplier, DEFAULT_MULTIPLIER).doubleValue(),
                orDefault(jitter, DEFAULT_JITTER),
                orDefault(maxAttempts, DEFAULT_MAX_ATTEMPTS).intValue());
    }

    public static RetryProperties defaults() {
        return new RetryProperties(null, null, null, null, (Integer) null);
    }

    /**
     * The domain policy with these settings.
     *
     * @param path the block's property path below {@code dispatcher.}, such as {@code retry}
     * @param random the jitter source; shared across threads, so it must be thread-safe
     * @throws IllegalArgumentException naming the property and the bad value
     */
    public RetryPolicy toPolicy(String path, RandomGenerator random) {
        try {
            return RetryPolicy.of(initialDelay, maxDelay, multiplier, jitter, maxAttempts, random);
        } catch (InvalidRetryPolicyException e) {
            String property = switch (e.setting()) {
                case INITIAL_DELAY -> "initial-delay";
                case MAX_DELAY -> "max-delay";
                case MULTIPLIER -> "multiplier";
                case MAX_ATTEMPTS -> "max-attempts";
            };
            String rule = e.setting() == InvalidRetryPolicyException.Setting.MAX_DELAY
                    && maxDelay.compareTo(initialDelay) < 0
                    ? "must be at least dispatcher." + path + ".initial-delay (" + format(initialDelay) + ")"
                    : e.rule();
            Object value = e.value() instanceof Duration d ? format(d) : e.value();
            throw invalid(path + "." + property, rule, value);
        }
    }

    /**
     * A consumer's {@code retry} block: each absent value falls back to {@code dispatcher.retry.*}.
     *
     * @param initialDelay the ceiling of the first retry delay; absent: {@code dispatcher.retry.initial-delay}
     * @param maxDelay the cap of every delay; absent: {@code dispatcher.retry.max-delay}
     * @param multiplier growth of the ceiling per attempt; absent: {@code dispatcher.retry.multiplier}
     * @param jitter how a delay is drawn below its ceiling; absent: {@code dispatcher.retry.jitter}
     * @param maxAttempts attempts before a message is dead-lettered; absent: {@code dispatcher.retry.max-attempts}
     */
    public record Overrides(@Nullable Duration initialDelay, @Nullable Duration maxDelay, @Nullable Double multiplier,
            @Nullable Jitter jitter, @Nullable Integer maxAttempts) {

        /** No override: everything from the global block. */
        public static final Overrides NONE = new Overrides(null, null, null, null, null);

        /** These values over {@code global}'s. */
        public RetryProperties over(RetryProperties global) {
            return new RetryProperties(orDefault(initialDelay, global.initialDelay()),
                    orDefault(maxDelay, global.maxDelay()), orDefault(multiplier, global.multiplier()),
                    orDefault(jitter, global.jitter()), orDefault(maxAttempts, global.maxAttempts()));
        }
    }
}
