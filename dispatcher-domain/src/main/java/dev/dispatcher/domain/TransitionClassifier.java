package dev.dispatcher.domain;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Classifies one requested transition from what a single guarded statement saw. Shared by the stores and the
 * tests, so the rule lives in one place.
 *
 * <p>Inputs are the worker's leased snapshot; the row as the statement's snapshot saw it; the row as it was once
 * locked (after waiting for any concurrent writer; absent if deleted); and the row the guarded write returned, if
 * it wrote. The rule, in order:
 * <ol>
 *   <li>written: {@code Applied};</li>
 *   <li>no current row: {@code Missing} (entry: our leased snapshot);</li>
 *   <li>the current row carries our token and already shows exactly our transition's result with the lease ended
 *       (a retry after an ambiguous commit): {@code Applied};</li>
 *   <li>the statement's snapshot showed our live lease but the locked row differs: {@code ConcurrencyLost};</li>
 *   <li>the current row is terminal: {@code Terminal};</li>
 *   <li>otherwise the token is not ours: {@code StaleLease}.</li>
 * </ol>
 */
public final class TransitionClassifier {

    private TransitionClassifier() {
    }

    /**
     * Classifies one transition.
     *
     * @param queue which queue the row lives in (decides the success status)
     * @param requested the transition asked for
     * @param ours the worker's leased snapshot
     * @param snapshot the row in the statement's snapshot, empty if it did not exist then
     * @param current the row after locking, empty if it does not exist (or was deleted during the race)
     * @param written the row the guarded write returned, empty if the guard rejected it
     * @param now database time at the start of the statement
     */
    public static TransitionResult classify(
            Queue queue,
            Transition requested,
            LeasedMessage ours,
            Optional<MessageState> snapshot,
            Optional<MessageState> current,
            Optional<MessageState> written,
            Instant now) {
        Objects.requireNonNull(now, "now");
        if (written.isPresent()) {
            return new TransitionResult(TransitionOutcome.APPLIED, written.get());
        }
        if (current.isEmpty()) {
            return new TransitionResult(TransitionOutcome.MISSING, ours.asState());
        }
        MessageState cur = current.get();
        if (isOwnEarlierWrite(queue, requested, ours, cur)) {
            return new TransitionResult(TransitionOutcome.APPLIED, cur);
        }
        boolean snapshotWasOurLiveLease = snapshot
                .filter(s -> s.isLiveLeaseOf(ours.lease().token(), now))
                .filter(s -> !s.equals(cur))
                .isPresent();
        if (snapshotWasOurLiveLease) {
            return new TransitionResult(TransitionOutcome.CONCURRENCY_LOST, cur);
        }
        if (cur.status().isTerminal()) {
            return new TransitionResult(TransitionOutcome.TERMINAL, cur);
        }
        return new TransitionResult(TransitionOutcome.STALE_LEASE, cur);
    }

    /**
     * Whether {@code cur} is exactly what our own lease-ending transition writes: our token, lease ended, and the
     * target status. Operator mutations clear the token, and every claim draws a fresh one, so no other writer
     * can leave this state behind.
     */
    static boolean isOwnEarlierWrite(Queue queue, Transition requested, LeasedMessage ours, MessageState cur) {
        return requested.endsLease()
                && ours.lease().token().equals(cur.leaseToken())
                && cur.leaseUntil() == null
                && cur.status() == requested.targetStatus(queue, ours.status());
    }
}
