package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.offset;

import java.time.Duration;
import java.util.SplittableRandom;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Invariants of {@link RetryPolicy}: backoff bounds, growth up to the cap, decorrelated floor, validation. */
class RetryPolicyPropertiesTest {

    private static final int DRAWS_PER_ATTEMPT = 20;

    @Provide
    Arbitrary<RetryPolicyArbitraries.Parameters> parameters() {
        return RetryPolicyArbitraries.parameters();
    }

    /** Attempts from 1 to {@code Integer.MAX_VALUE}, small ones (where the ceiling still grows) more often. */
    @Provide
    Arbitrary<Integer> attempts() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(1, 64),
                Arbitraries.integers().between(1, Integer.MAX_VALUE));
    }

    @Property
    void delayIsAlwaysWithinZeroAndMaxDelay(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters,
            @ForAll long seed,
            @ForAll("attempts") int attempt) {
        RetryPolicy policy = parameters.withSeed(seed);

        for (int draw = 0; draw < DRAWS_PER_ATTEMPT; draw++) {
            Duration delay = policy.delayAfter(attempt);

            assertThat(delay).isBetween(Duration.ZERO, parameters.maxDelay());
        }
    }

    @Property
    void delayRespectsItsJitterMode(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters,
            @ForAll long seed,
            @ForAll("attempts") int attempt) {
        RetryPolicy policy = parameters.withSeed(seed);
        Duration ceiling = policy.ceiling(attempt);

        for (int draw = 0; draw < DRAWS_PER_ATTEMPT; draw++) {
            Duration delay = policy.delayAfter(attempt);

            switch (parameters.jitter()) {
                case FULL -> assertThat(delay).isBetween(Duration.ZERO, ceiling);
                case DECORRELATED -> assertThat(delay).isBetween(parameters.initialDelay(), parameters.maxDelay());
                case NONE -> assertThat(delay).isEqualTo(ceiling);
            }
        }
    }

    @Property
    void decorrelatedDelayIsNeverBelowTheInitialDelay(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters anyParameters,
            @ForAll long seed,
            @ForAll("attempts") int attempt) {
        RetryPolicyArbitraries.Parameters parameters = new RetryPolicyArbitraries.Parameters(
                anyParameters.initialDelay(), anyParameters.maxDelay(), anyParameters.multiplier(),
                Jitter.DECORRELATED, anyParameters.maxAttempts());
        RetryPolicy policy = parameters.withSeed(seed);

        for (int draw = 0; draw < DRAWS_PER_ATTEMPT; draw++) {
            assertThat(policy.delayAfter(attempt))
                    .isGreaterThanOrEqualTo(parameters.initialDelay())
                    .isLessThanOrEqualTo(parameters.maxDelay());
        }
    }

    @Property
    void ceilingStartsAtTheInitialDelayAndNeverDecreasesUntilItStaysAtTheCap(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters) {
        RetryPolicy policy = parameters.withSeed(0);

        assertThat(policy.ceiling(1)).isEqualTo(parameters.initialDelay());
        Duration previous = policy.ceiling(1);
        for (int attempt = 2; attempt <= 200; attempt++) {
            Duration ceiling = policy.ceiling(attempt);

            assertThat(ceiling).isGreaterThanOrEqualTo(previous).isLessThanOrEqualTo(parameters.maxDelay());
            if (previous.equals(parameters.maxDelay())) {
                assertThat(ceiling).isEqualTo(parameters.maxDelay());
            }
            previous = ceiling;
        }
        assertThat(policy.ceiling(Integer.MAX_VALUE)).isGreaterThanOrEqualTo(previous);
    }

    @Property
    void ceilingReachesTheCapForLargeAttemptsWhenTheMultiplierGrows(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters) {
        Assume.that(parameters.multiplier() >= 1.01);
        RetryPolicy policy = parameters.withSeed(0);

        assertThat(policy.ceiling(Integer.MAX_VALUE)).isEqualTo(parameters.maxDelay());
        assertThat(policy.delayAfter(Integer.MAX_VALUE)).isLessThanOrEqualTo(parameters.maxDelay());
    }

    /**
     * The expected delay (estimated by the mean of many draws) never decreases from one attempt to the next, up to
     * and past the cap. The tolerance is six standard errors of the difference plus the millisecond rounding, so a
     * sound policy fails with negligible probability while a shrinking backoff (which moves the mean by a large
     * fraction of the range) is caught.
     */
    @Property(tries = 100)
    void meanDelayNeverDecreasesWithAttempts(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters, @ForAll long seed) {
        RetryPolicy policy = parameters.withSeed(seed);
        int draws = 1_000;
        int lastAttempt = 1;
        while (lastAttempt < 30 && policy.ceiling(lastAttempt).compareTo(parameters.maxDelay()) < 0) {
            lastAttempt++;
        }
        lastAttempt = Math.min(30, lastAttempt + 2); // a few attempts past the cap too

        Sample previous = Sample.of(policy, 1, draws);
        for (int attempt = 2; attempt <= lastAttempt; attempt++) {
            Sample current = Sample.of(policy, attempt, draws);
            double tolerance = 6 * Math.sqrt(previous.variance() / draws + current.variance() / draws) + 1;

            assertThat(current.mean())
                    .as("mean delay of attempt %d vs %d for %s", attempt, attempt - 1, policy)
                    .isGreaterThanOrEqualTo(previous.mean() - tolerance);
            previous = current;
        }
    }

    @Property(tries = 100)
    void fullJitterMeanIsHalfTheCeiling(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters anyParameters,
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 40) int attempt) {
        RetryPolicy policy = RetryPolicy.of(anyParameters.initialDelay(), anyParameters.maxDelay(),
                anyParameters.multiplier(), Jitter.FULL, anyParameters.maxAttempts(), new SplittableRandom(seed));
        int draws = 2_000;
        double ceiling = policy.ceiling(attempt).toMillis();

        Sample sample = Sample.of(policy, attempt, draws);

        double standardError = ceiling / Math.sqrt(12.0 * draws);
        assertThat(sample.mean()).isCloseTo(ceiling / 2, offset(6 * standardError + 1));
    }

    @Property
    void nonPositiveInitialDelayIsRejectedNamingTheValue(@ForAll @LongRange(min = -1_000_000, max = 0) long millis) {
        Duration initial = Duration.ofMillis(millis);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.of(initial, Duration.ofSeconds(1), 2.0, Jitter.FULL, 3,
                        new SplittableRandom(1)))
                .withMessageContaining("initial delay")
                .withMessageContaining(initial.toString());
    }

    @Property
    void maxDelayBelowTheInitialDelayIsRejectedNamingTheValue(
            @ForAll @LongRange(min = 2, max = 10_000_000) long initialMillis, @ForAll @LongRange(min = 1) long below) {
        Duration initial = Duration.ofMillis(initialMillis);
        Duration max = Duration.ofMillis(Math.max(initialMillis - below, -initialMillis));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.of(initial, max, 2.0, Jitter.FULL, 3, new SplittableRandom(1)))
                .withMessageContaining("max delay")
                .withMessageContaining(max.toString());
    }

    @Provide
    Arbitrary<Double> invalidMultipliers() {
        return Arbitraries.oneOf(
                Arbitraries.doubles().between(-1_000.0, 1.0).filter(m -> m < 1.0),
                Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0,
                        Math.nextDown(1.0)));
    }

    @Property
    void multiplierBelowOneOrNotFiniteIsRejectedNamingTheValue(@ForAll("invalidMultipliers") double multiplier) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.of(Duration.ofSeconds(1), Duration.ofSeconds(10), multiplier,
                        Jitter.FULL, 3, new SplittableRandom(1)))
                .withMessageContaining("multiplier")
                .withMessageContaining(String.valueOf(multiplier));
    }

    @Property
    void multiplierOfAtLeastOneIsAccepted(@ForAll @DoubleRange(min = 1.0, max = 1e12) double multiplier) {
        RetryPolicy policy = RetryPolicy.of(Duration.ofSeconds(1), Duration.ofSeconds(10), multiplier, Jitter.FULL, 3,
                new SplittableRandom(1));

        assertThat(policy.multiplier()).isEqualTo(multiplier);
    }

    @Property
    void maxAttemptsBelowOneIsRejectedNamingTheValue(@ForAll @IntRange(min = Integer.MIN_VALUE, max = 0) int maxAttempts) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.of(Duration.ofSeconds(1), Duration.ofSeconds(10), 2.0, Jitter.FULL,
                        maxAttempts, new SplittableRandom(1)))
                .withMessageContaining("max attempts")
                .withMessageContaining(String.valueOf(maxAttempts));
    }

    @Property
    void attemptBelowOneIsRejectedNamingTheValue(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters,
            @ForAll @IntRange(min = Integer.MIN_VALUE, max = 0) int attempt) {
        RetryPolicy policy = parameters.withSeed(0);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> policy.delayAfter(attempt))
                .withMessageContaining("attempt")
                .withMessageContaining(String.valueOf(attempt));
    }

    @Property
    void policyIsExhaustedExactlyFromMaxAttempts(
            @ForAll("parameters") RetryPolicyArbitraries.Parameters parameters,
            @ForAll @IntRange(min = 0, max = 1_000) int attempts) {
        RetryPolicy policy = parameters.withSeed(0);

        assertThat(policy.isExhausted(attempts)).isEqualTo(attempts >= parameters.maxAttempts());
    }

    /** Mean and (sample) variance of the delays drawn for one attempt, in milliseconds. */
    private record Sample(double mean, double variance) {

        static Sample of(RetryPolicy policy, int attempt, int draws) {
            double sum = 0;
            double sumOfSquares = 0;
            for (int i = 0; i < draws; i++) {
                double millis = policy.delayAfter(attempt).toMillis();
                sum += millis;
                sumOfSquares += millis * millis;
            }
            double mean = sum / draws;
            double variance = Math.max(0, (sumOfSquares - draws * mean * mean) / (draws - 1));
            return new Sample(mean, variance);
        }
    }
}
