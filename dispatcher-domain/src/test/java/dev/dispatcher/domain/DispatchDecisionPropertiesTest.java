package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Invariants of {@link DispatchDecision#decide}: totality and the result-to-transition mapping.
 */
class DispatchDecisionPropertiesTest {

    @Provide
    Arbitrary<RetryPolicy> policies() {
        return RetryPolicyArbitraries.policies();
    }

    /** Attempts in [0, 1000], small counts (around typical limits) more often. */
    @Provide
    Arbitrary<Integer> attempts() {
        return Arbitraries.oneOf(Arbitraries.integers().between(0, 20), Arbitraries.integers().between(0, 1_000));
    }

    @Provide
    Arbitrary<DispatchResult> results() {
        Arbitrary<String> texts = Arbitraries.strings().ofMaxLength(40).injectNull(0.1);
        return Arbitraries.oneOf(
                Arbitraries.of(new DispatchResult.Published(), DispatchResult.PUBLISHED),
                Arbitraries.strings().ofMaxLength(40).map(DispatchResult.NotAttempted::new),
                Arbitraries.of(FailureKind.class).flatMap(kind -> texts.map(error -> new DispatchResult.Failed(kind, error))),
                deferrals());
    }

    @Provide
    Arbitrary<DispatchResult.Deferred> deferrals() {
        return Arbitraries.longs().between(0, 3_600_000).flatMap(ms -> Arbitraries.strings().ofMaxLength(40)
                .map(error -> new DispatchResult.Deferred(Duration.ofMillis(ms), error)));
    }

    private static Arbitrary<DispatchResult.Failed> failures(FailureKind kind) {
        return Arbitraries.strings().ofMaxLength(40).injectNull(0.1).map(error -> new DispatchResult.Failed(kind, error));
    }

    @Property
    void decisionIsTotal(
            @ForAll("results") DispatchResult result,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        Transition[] decided = new Transition[1];

        assertThatCode(() -> decided[0] = DispatchDecision.decide(result, attempts, policy)).doesNotThrowAnyException();

        assertThat(decided[0]).isNotNull();
        Statistics.label("transition").collect(decided[0].tag());
        Statistics.label("transition").coverage(coverage -> {
            coverage.check("deliver").count((Integer count) -> count > 0);
            coverage.check("retry").count((Integer count) -> count > 0);
            coverage.check("dead_letter").count((Integer count) -> count > 0);
            coverage.check("release").count((Integer count) -> count > 0);
        });
    }

    @Property
    void exhaustedAttemptsNeverScheduleARetry(
            @ForAll("results") DispatchResult result,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        Transition decided = DispatchDecision.decide(result, attempts, policy);

        if (attempts >= policy.maxAttempts()) {
            assertThat(decided).isNotInstanceOf(Transition.ScheduleRetry.class);
        }
    }

    @Property
    void exhaustedTransientFailureIsDeadLettered(
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy,
            @ForAll("transientFailures") DispatchResult.Failed failure) {
        Assume.that(attempts >= policy.maxAttempts());

        assertThat(DispatchDecision.decide(failure, attempts, policy)).isInstanceOf(Transition.DeadLetter.class);
    }

    @Provide
    Arbitrary<DispatchResult.Failed> transientFailures() {
        return failures(FailureKind.TRANSIENT);
    }

    @Provide
    Arbitrary<DispatchResult.Failed> permanentFailures() {
        return failures(FailureKind.PERMANENT);
    }

    @Provide
    Arbitrary<DispatchResult> releasedResults() {
        return Arbitraries.oneOf(
                failures(FailureKind.UNAVAILABLE),
                Arbitraries.strings().ofMaxLength(40).map(DispatchResult.NotAttempted::new),
                deferrals());
    }

    @Property
    void permanentFailureIsAlwaysDeadLettered(
            @ForAll("permanentFailures") DispatchResult.Failed failure,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        Transition decided = DispatchDecision.decide(failure, attempts, policy);

        assertThat(decided).isInstanceOf(Transition.DeadLetter.class);
        assertThat(((Transition.DeadLetter) decided).reason()).contains(failure.error());
    }

    @Property
    void unavailableOrNotAttemptedIsAlwaysReleased(
            @ForAll("releasedResults") DispatchResult result,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        assertThat(DispatchDecision.decide(result, attempts, policy)).isInstanceOf(Transition.Release.class);
    }

    @Property
    void everyFailedAttemptKeepsItsError(
            @ForAll("results") DispatchResult result,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        Assume.that(result instanceof DispatchResult.Failed || result instanceof DispatchResult.Deferred);
        String error = switch (result) {
            case DispatchResult.Failed f -> f.error();
            case DispatchResult.Deferred d -> d.error();
            case DispatchResult.Published p -> throw new AssertionError("assumed away");
            case DispatchResult.NotAttempted n -> throw new AssertionError("assumed away");
        };

        String kept = switch (DispatchDecision.decide(result, attempts, policy)) {
            case Transition.ScheduleRetry retry -> retry.error();
            case Transition.DeadLetter dead -> dead.reason();
            case Transition.Release release -> release.error();
            case Transition.Deliver deliver -> null;
            case Transition.RenewLease renew -> null;
        };

        assertThat(kept).as("last_error of %s", result).isNotNull().contains(error);
    }

    @Property
    void deferredIsReleasedWithItsDelayAndError(
            @ForAll("deferrals") DispatchResult.Deferred deferred,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        assertThat(DispatchDecision.decide(deferred, attempts, policy))
                .isEqualTo(new Transition.Release(deferred.delay(), deferred.error()));
    }

    @Property
    void notAttemptedIsThePlainRelease(
            @ForAll @net.jqwik.api.constraints.StringLength(max = 40) String reason,
            @ForAll("attempts") int attempts,
            @ForAll("policies") RetryPolicy policy) {
        assertThat(DispatchDecision.decide(new DispatchResult.NotAttempted(reason), attempts, policy))
                .isEqualTo(new Transition.Release());
    }

    @Property
    void publishedIsAlwaysDelivered(
            @ForAll("attempts") int attempts, @ForAll("policies") RetryPolicy policy) {
        assertThat(DispatchDecision.decide(new DispatchResult.Published(), attempts, policy))
                .isInstanceOf(Transition.Deliver.class);
        assertThat(DispatchDecision.decide(DispatchResult.PUBLISHED, attempts, policy))
                .isInstanceOf(Transition.Deliver.class);
    }

    /** A policy with an attempt count below its limit: the only case where a retry may be scheduled. */
    record PolicyBelowLimit(RetryPolicy policy, int attempts) {
    }

    @Provide
    Arbitrary<PolicyBelowLimit> policiesBelowLimit() {
        return RetryPolicyArbitraries.policies().flatMap(policy -> Arbitraries.integers()
                .between(0, policy.maxAttempts() - 1)
                .map(attempts -> new PolicyBelowLimit(policy, attempts)));
    }

    @Property
    void transientFailureBelowTheLimitSchedulesARetryWithinMaxDelay(
            @ForAll("transientFailures") DispatchResult.Failed failure,
            @ForAll("policiesBelowLimit") PolicyBelowLimit below) {
        RetryPolicy policy = below.policy();

        Transition decided = DispatchDecision.decide(failure, below.attempts(), policy);

        assertThat(decided).isInstanceOfSatisfying(Transition.ScheduleRetry.class, retry -> {
            assertThat(retry.delay()).isBetween(Duration.ZERO, policy.maxDelay());
            assertThat(retry.error()).isEqualTo(failure.error());
        });
    }
}
