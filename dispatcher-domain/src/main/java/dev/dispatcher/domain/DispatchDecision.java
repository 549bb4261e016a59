package dev.dispatcher.domain;

import java.time.Duration;
import java.util.Objects;

/**
 * The one place that turns a dispatch result into the transition to write. Total: every result and attempt count
 * yields a transition.
 *
 * <ul>
 *   <li>published: {@link Transition.Deliver};</li>
 *   <li>permanent failure: {@link Transition.DeadLetter} at once;</li>
 *   <li>not attempted: the plain {@link Transition.Release}, spending no attempt;</li>
 *   <li>destination unavailable (the broker): {@link Transition.Release} keeping the error, spending no attempt;</li>
 *   <li>deferred (the message's topic cannot take it now): {@link Transition.Release} with the deferral as delay
 *       and the error kept, spending no attempt;</li>
 *   <li>transient failure: {@link Transition.ScheduleRetry} with the policy's backoff, or
 *       {@link Transition.DeadLetter} once the attempts are exhausted.</li>
 * </ul>
 */
public final class DispatchDecision {

    private DispatchDecision() {
    }

    /**
     * Decides the transition for one message.
     *
     * @param result what the dispatch attempt returned
     * @param attempts attempts spent including this one
     * @param policy backoff and attempt limit
     */
    public static Transition decide(DispatchResult result, int attempts, RetryPolicy policy) {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(policy, "policy");
        return switch (result) {
            case DispatchResult.Published p -> new Transition.Deliver();
            case DispatchResult.NotAttempted n -> new Transition.Release();
            case DispatchResult.Deferred d -> new Transition.Release(d.delay(), d.error());
            case DispatchResult.Failed f -> switch (f.kind()) {
                case PERMANENT -> permanent(f);
                case UNAVAILABLE -> new Transition.Release(Duration.ZERO, f.error());
                case TRANSIENT -> policy.isExhausted(attempts) ? exhausted(f, attempts)
                        : new Transition.ScheduleRetry(policy.delayAfter(Math.max(1, attempts)), f.error());
            };
        };
    }

    private static Transition.DeadLetter permanent(DispatchResult.Failed f) {
        return new Transition.DeadLetter("permanent failure: " + f.error());
    }

    private static Transition.DeadLetter exhausted(DispatchResult.Failed f, int attempts) {
        return new Transition.DeadLetter("gave up after " + attempts + " attempts: " + f.error());
    }
}
