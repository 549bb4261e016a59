package dev.dispatcher.app.queue;

/**
 * When a claim loop's next claim may start: a function of the last claim's {@link Outcome}, when it started and the
 * linger the stream before it earned. Immutable; the loop keeps the current value and replaces it at the start and
 * at the end of each claim ({@link #started}, {@link #claimed}, {@link #failed}). Times are nanoseconds on the
 * loop's clock (its scheduler's {@code now}), passed in, so the rules hold the same in virtual time.
 *
 * <p>The rules ({@link #next()}):
 * <ul>
 *   <li>{@link Outcome#FULL}: claim at once;</li>
 *   <li>{@link Outcome#PARTIAL}: claim once the linger has passed since the last claim started. The linger is
 *       {@code claimLinger}, stretched with the rate of the rows the claim found over the window since the claim
 *       before it when that one also found rows but not a full batch, or found none only because batches in flight
 *       held back every row ({@link #stretchedLinger});</li>
 *   <li>{@link Outcome#HELD_BACK} (nothing found while batches holding back work were in flight): claim when such a
 *       batch finishes, or after a wake-up once the stream's linger, doubled for each further such claim, has passed
 *       ({@link #heldBackLinger}, at most the poll interval). A held-back claim keeps the stream's linger;</li>
 *   <li>{@link Outcome#EMPTY} (nothing found, a failed claim, or no claim yet): claim after a wake-up (or the poll
 *       interval) once the linger has passed.</li>
 * </ul>
 * Invariant: a claim starts at once only after a full claim or when a batch that held back work has finished;
 * otherwise no sooner than the linger after the previous claim started (after held-back claims, the doubled linger,
 * never more than the poll interval).
 *
 * @param claimLingerNanos the configured {@code claimLinger}
 * @param pollNanos the configured {@code pollInterval}
 * @param last what the last claim found
 * @param lastStartNanos when the last claim started
 * @param lingerNanos the wait after a claim that found some rows, fewer than a batch
 * @param heldBackClaims consecutive claims that came back {@link Outcome#HELD_BACK}
 * @param windowNanos the window the running claim's rows arrived in (from the start of the claim before it), or 0
 *     when that claim's rows say nothing of a stream (it came back full or found nothing by itself)
 */
record ClaimPacing(long claimLingerNanos, long pollNanos, Outcome last, long lastStartNanos, long lingerNanos,
        int heldBackClaims, long windowNanos) {

    /**
     * Rows a second up to which a stream of partial claims keeps the configured {@code claimLinger}; above it the
     * linger stretches in proportion to the rate ({@link #stretchedLinger}).
     */
    static final double STREAM_RATE = 500;
    /** The most the linger stretches under a fast stream: this many times {@code claimLinger}. */
    static final int MAX_STRETCH = 4;

    /** What a claim found. */
    enum Outcome {
        /** A full batch, by rows or by bytes. */
        FULL,
        /** Some rows, fewer than a full batch. */
        PARTIAL,
        /** Nothing, while batches in flight held back every row the claim could have taken. */
        HELD_BACK,
        /** Nothing (or the claim failed, or none was made yet). */
        EMPTY
    }

    /** When the next claim starts. */
    sealed interface Next {
    }

    /** Claim at once. */
    record ClaimNow() implements Next {
    }

    /** Claim at {@code atNanos} (at once if that has passed). */
    record ClaimAt(long atNanos) implements Next {
    }

    /**
     * Claim when a batch that held back work finishes, or after a wake-up (or the poll interval), no earlier than
     * {@code atNanos}.
     */
    record ClaimOnFreedOrWakeup(long atNanos) implements Next {
    }

    /** Claim after a wake-up (or the poll interval), no earlier than {@code atNanos}. */
    record ClaimOnWakeup(long atNanos) implements Next {
    }

    /** The pacing before the first claim: it may start at {@code nowNanos}, on the first wake-up. */
    static ClaimPacing initial(LoopSettings settings, long nowNanos) {
        long linger = settings.claimLinger().toNanos();
        return new ClaimPacing(linger, settings.pollInterval().toNanos(), Outcome.EMPTY, nowNanos - linger, linger,
                0, 0);
    }

    /** The next step after the last claim. */
    Next next() {
        return switch (last) {
            case FULL -> new ClaimNow();
            case PARTIAL -> new ClaimAt(lastStartNanos + lingerNanos);
            case HELD_BACK -> new ClaimOnFreedOrWakeup(
                    lastStartNanos + heldBackLinger(lingerNanos, heldBackClaims, pollNanos));
            case EMPTY -> new ClaimOnWakeup(lastStartNanos + lingerNanos);
        };
    }

    /** Nanoseconds from {@code nowNanos} until {@code atNanos}, at least 0. */
    static long delay(long atNanos, long nowNanos) {
        return Math.max(0, atNanos - nowNanos);
    }

    /** This pacing once a claim has started at {@code nowNanos}: it remembers the window that claim's rows fill. */
    ClaimPacing started(long nowNanos) {
        boolean streaming = last == Outcome.PARTIAL || last == Outcome.HELD_BACK;
        return new ClaimPacing(claimLingerNanos, pollNanos, last, nowNanos, lingerNanos, heldBackClaims,
                streaming ? nowNanos - lastStartNanos : 0);
    }

    /**
     * This pacing once the started claim found {@code rows} rows.
     *
     * @param full whether they were a full batch, by rows or by bytes
     * @param heldBack whether it found none while batches that hold back work were in flight
     */
    ClaimPacing claimed(int rows, boolean full, boolean heldBack) {
        Outcome outcome = full ? Outcome.FULL
                : rows > 0 ? Outcome.PARTIAL
                : heldBack ? Outcome.HELD_BACK
                : Outcome.EMPTY;
        boolean held = outcome == Outcome.HELD_BACK;
        // held back, the stream's linger stays: the rows are still arriving
        long linger = held ? lingerNanos : stretchedLinger(claimLingerNanos, rows, windowNanos);
        return new ClaimPacing(claimLingerNanos, pollNanos, outcome, lastStartNanos, linger,
                held ? heldBackClaims + 1 : 0, 0);
    }

    /** This pacing once the started claim failed: as after an empty claim (the loop waits a poll interval first). */
    ClaimPacing failed() {
        return new ClaimPacing(claimLingerNanos, pollNanos, Outcome.EMPTY, lastStartNanos, lingerNanos, 0, 0);
    }

    /** This pacing for a new run of a stopped loop: as after an empty claim, keeping the last start and linger. */
    ClaimPacing restarted() {
        return failed();
    }

    /**
     * The wait after a partial claim: {@code claimLinger}, stretched under a stream faster than {@link #STREAM_RATE}
     * rows a second to {@code claimLinger x rate / STREAM_RATE}, at most {@link #MAX_STRETCH} times, so a fast stream
     * is claimed in fewer, larger batches while a slow one keeps the configured latency (figures:
     * docs/measurements.md, "A stretched claim linger").
     *
     * @param rows the rows the last claim found (fewer than a batch)
     * @param windowNanos the time from the claim before it to its start: the window those rows arrived in; 0 or
     *     less: none (the configured linger)
     */
    static long stretchedLinger(long lingerNanos, int rows, long windowNanos) {
        if (windowNanos <= 0 || rows <= 0) {
            return lingerNanos;
        }
        double perSecond = rows * 1e9 / windowNanos;
        double stretch = Math.min(MAX_STRETCH, Math.max(1.0, perSecond / STREAM_RATE));
        return (long) (lingerNanos * stretch);
    }

    /**
     * The wait before a claim on new work after {@code emptyClaims} consecutive claims that found nothing because
     * batches in flight held back every row: the stream's linger, doubled for each such claim after the first, at
     * most {@code pollNanos}. The finish of such a batch still claims at once; only rows on keys no batch holds may
     * wait longer (figures: docs/measurements.md, "Fewer empty claims behind held keys").
     */
    static long heldBackLinger(long lingerNanos, int emptyClaims, long pollNanos) {
        int doublings = Math.min(Math.max(emptyClaims - 1, 0), 30);
        return lingerNanos > pollNanos >> doublings ? pollNanos : lingerNanos << doublings;
    }
}
