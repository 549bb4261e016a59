package dev.dispatcher.domain;

import java.time.Duration;
import java.util.SplittableRandom;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generators of valid {@link RetryPolicy} parameters, shared by the property tests. Delays are whole milliseconds
 * (the policy's resolution), from 1 ms up to a day; the random source is seeded from the generated seed, so every
 * sample is reproducible.
 */
final class RetryPolicyArbitraries {

    static final long MAX_MILLIS = Duration.ofDays(1).toMillis();

    private RetryPolicyArbitraries() {
    }

    /** Parameters of a valid policy, without the random source. */
    record Parameters(Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter, int maxAttempts) {

        RetryPolicy withSeed(long seed) {
            return RetryPolicy.of(initialDelay, maxDelay, multiplier, jitter, maxAttempts, new SplittableRandom(seed));
        }
    }

    static Arbitrary<Parameters> parameters() {
        Arbitrary<Long> initialMillis = Arbitraries.oneOf(
                Arbitraries.longs().between(1, 10_000),
                Arbitraries.longs().between(1, MAX_MILLIS),
                Arbitraries.of(1L, 1_000L, MAX_MILLIS));
        Arbitrary<Long> extraMillis = Arbitraries.oneOf(
                Arbitraries.just(0L),
                Arbitraries.longs().between(0, 600_000),
                Arbitraries.longs().between(0, MAX_MILLIS));
        Arbitrary<Double> multiplier = Arbitraries.oneOf(
                Arbitraries.of(1.0, 1.5, 2.0, 3.0, 10.0),
                Arbitraries.doubles().between(1.0, 10.0),
                Arbitraries.doubles().between(1.0, 1_000.0));
        return Combinators.combine(
                        initialMillis, extraMillis, multiplier, Arbitraries.of(Jitter.class),
                        Arbitraries.integers().between(1, 100))
                .as((init, extra, mult, jitter, maxAttempts) -> new Parameters(
                        Duration.ofMillis(init), Duration.ofMillis(Math.min(init + extra, MAX_MILLIS)), mult, jitter,
                        maxAttempts));
    }

    /** A valid policy with a seeded random source. */
    static Arbitrary<RetryPolicy> policies() {
        return Combinators.combine(parameters(), Arbitraries.longs()).as(Parameters::withSeed);
    }
}
