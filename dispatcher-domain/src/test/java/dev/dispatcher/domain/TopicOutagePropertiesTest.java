package dev.dispatcher.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The rule for messages of a failing topic ({@link TopicOutage#result}): deferred within the bounds while the topic
 * is merely failing or missing for less than the timeout, dead-lettered with the cause once missing that long, never
 * spending an attempt before.
 */
class TopicOutagePropertiesTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final String UNKNOWN = "topic 'orders' does not exist (UNKNOWN_TOPIC_OR_PARTITION)";

    /** An outage that began up to an hour ago, missing since some time within it (or not missing). */
    record Case(TopicOutage outage, Duration timeout) {
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Long> failingForMs = Arbitraries.oneOf(Arbitraries.longs().between(0, 60_000),
                Arbitraries.longs().between(0, 3_600_000));
        Arbitrary<Long> timeoutMs = Arbitraries.oneOf(Arbitraries.longs().between(1, 10_000),
                Arbitraries.longs().between(1, 3_600_000));
        return Combinators.combine(failingForMs, Arbitraries.doubles().between(0, 1).injectNull(0.3), timeoutMs)
                .as((failing, missingShare, timeout) -> {
                    Instant since = NOW.minusMillis(failing);
                    Instant missingSince = missingShare == null ? null : NOW.minusMillis((long) (failing * missingShare));
                    return new Case(new TopicOutage("orders", UNKNOWN, since, missingSince), Duration.ofMillis(timeout));
                });
    }

    @Property
    void aTopicMissingForTheTimeoutDeadLettersAndEveryOtherCaseDefers(@ForAll("cases") Case c) {
        DispatchResult result = c.outage().result(NOW, c.timeout());

        boolean timedOut = c.outage().missing()
                && Duration.between(c.outage().missingSince(), NOW).compareTo(c.timeout()) >= 0;
        if (timedOut) {
            assertThat(result).isInstanceOfSatisfying(DispatchResult.Failed.class, failed -> {
                assertThat(failed.kind()).isEqualTo(FailureKind.PERMANENT);
                assertThat(failed.error()).startsWith(UNKNOWN).contains("missing-topic timeout");
            });
        } else {
            assertThat(result).isInstanceOfSatisfying(DispatchResult.Deferred.class,
                    deferred -> assertThat(deferred.error()).startsWith(UNKNOWN));
        }
    }

    @Property
    void aDeferralIsWithinItsBoundsAndNeverOvershootsTheDeadLetterDeadlineByMoreThanTheMinimum(
            @ForAll("cases") Case c) {
        if (!(c.outage().result(NOW, c.timeout()) instanceof DispatchResult.Deferred deferred)) {
            return;
        }

        assertThat(deferred.delay()).isBetween(TopicOutage.MIN_DEFERRAL, TopicOutage.MAX_DEFERRAL);
        assertThat(deferred.delay()).isLessThanOrEqualTo(Duration.between(c.outage().failingSince(), NOW)
                .plus(TopicOutage.MIN_DEFERRAL));
        if (c.outage().missing()) {
            Instant deadline = c.outage().missingSince().plus(c.timeout());
            assertThat(NOW.plus(deferred.delay())).isBeforeOrEqualTo(deadline.plus(TopicOutage.MIN_DEFERRAL));
        }
    }

    @Property
    void aLongerOutageNeverDefersLessWhileTheTopicIsNotMissing(
            @ForAll("cases") Case c, @ForAll("laterBy") Duration later) {
        TopicOutage failing = new TopicOutage("orders", "timeout", c.outage().failingSince(), null);

        Duration now = ((DispatchResult.Deferred) failing.result(NOW, c.timeout())).delay();
        Duration afterwards = ((DispatchResult.Deferred) failing.result(NOW.plus(later), c.timeout())).delay();

        assertThat(afterwards).isGreaterThanOrEqualTo(now);
    }

    @Provide
    Arbitrary<Duration> laterBy() {
        return Arbitraries.longs().between(0, 600_000).map(Duration::ofMillis);
    }

    @Test
    void theDeadLetterReasonNamesTheTopicTheCauseAndTheTimeout() {
        TopicOutage outage = new TopicOutage("orders", UNKNOWN, NOW.minusSeconds(400), NOW.minusSeconds(300));

        DispatchResult result = outage.result(NOW, Duration.ofMinutes(5));

        assertThat(result).isEqualTo(new DispatchResult.Failed(FailureKind.PERMANENT,
                UNKNOWN + " for PT5M (the missing-topic timeout)"));
        assertThat(DispatchDecision.decide(result, 1, RetryPolicy.defaults(new java.util.SplittableRandom(1))))
                .isEqualTo(new Transition.DeadLetter("permanent failure: " + UNKNOWN
                        + " for PT5M (the missing-topic timeout)"));
    }

    @Test
    void aFreshlyMissingTopicDefersByTheMinimumAndSaysWhenItGivesUp() {
        TopicOutage outage = new TopicOutage("orders", UNKNOWN, NOW, NOW);

        assertThat(outage.result(NOW.plusMillis(200), Duration.ofMinutes(5))).isEqualTo(new DispatchResult.Deferred(
                TopicOutage.MIN_DEFERRAL, UNKNOWN + ", missing for PT0.2S; dead-lettered after PT5M"));
    }
}
