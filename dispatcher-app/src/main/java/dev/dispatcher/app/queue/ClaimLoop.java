package dev.dispatcher.app.queue;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.domain.DispatchDecision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The leased-queue kernel: claims batches from a {@link LeasedQueue}, hands each to a {@link BatchStrategy}, renews
 * the leases of unfinished messages, writes the batch's classified transitions in one statement, counts outcomes,
 * and drains on {@link #stop()}. The outbox relay and every inbox consumer run one.
 *
 * <p><b>Gating.</b> Every turn of the loop either claims or waits, on the loop's own scheduler, for something that
 * will really change, so no turn can repeat synchronously (least of all on the R2DBC event loop that delivered a
 * notification):
 * <ul>
 *   <li>{@code maxInFlightBatches} unfinished batches, or their payloads at {@code maxInFlightBytes}: wait for one
 *       to finish (or the poll interval); otherwise a claim is given the bytes the batches in flight leave;</li>
 *   <li>paused: wait for the pause switch to change (or the poll interval); wake-ups are ignored meanwhile;</li>
 *   <li>destination unavailable (the relay's open breaker): wait a poll interval, then probe; claim nothing;</li>
 *   <li>the last claim came back full: claim at once;</li>
 *   <li>it found some rows: claim again once {@code claimLinger} has passed since it started (more may be
 *       committing: writers that commit while another notifies skip their own notification); under a stream of
 *       more than {@link #STREAM_RATE} rows a second the linger stretches with the rate, up to {@link
 *       #MAX_STRETCH} times ({@link #stretchedLinger}). A claim after one that found nothing only because batches
 *       in flight held every key with rows counts its rows over the window since that claim too: the stream went
 *       on behind the held keys (in 2,000/s per-key runs such a claim took 100-260 rows, and with the configured 5
 *       ms linger after it the next claims found nothing until its batch finished);</li>
 *   <li>it found none while batches were in flight and the strategy {@linkplain BatchStrategy#holdsBackWork() holds
 *       back work} (per-key order: what it could not take may wait for the keys those batches hold): claim at once
 *       when one of them finishes having held back work (below), or after a wake-up and the linger the stream had
 *       (new work may be on other keys), doubled for each further such empty claim up to the poll interval ({@link
 *       #heldBackLinger}), not a claim linger after every wake-up. Why: in 2,000/s per-key runs on a
 *       saturated machine, a batch that stalled (its claim or Deliver waiting 50-200 ms for a core) was followed by
 *       an empty claim every 5 ms, each costing the database 2.5-6 ms for nothing while it was busiest, and the
 *       rows it held back were claimed up to a linger after it had freed their keys;</li>
 *   <li>it found none: wait for a wake-up after the generation recorded when it started, or the poll interval, then
 *       the linger.</li>
 * </ul>
 * A finished batch frees capacity and wakes the loop only when rows may be waiting for it: rows it gave back, or
 * (when the strategy {@linkplain BatchStrategy#holdsBackWork() holds back work}) a full batch or one during which
 * new work was signalled.
 *
 * <p><b>Writing.</b> The loop decides each {@link Attempt.Dispatched} with the domain's {@code DispatchDecision},
 * hands the messages it dead-letters to the strategy first ({@link BatchStrategy#beforeDeadLetter}: a dead-letter
 * topic, while the batch's leases are still renewed), and writes the batch's transitions in one statement, retried with backoff while {@link DatabaseFailures} calls
 * the error retryable (safe: a lost commit acknowledgement is recognised as our own write). A write that still
 * fails is counted as {@code persist_rejected}; the leases run out and the rows are claimed again. Every outcome is
 * counted; non-applied ones are warned about and never counted as success.
 *
 * <p>Thread-safety: {@link #wake()}, {@link #pauseChanged()} and {@link #stop()} may be called from any thread.
 * Claim-loop state is owned by the loop (one turn at a time); shared counters are atomics.
 *
 * @param <M> the claimed row type
 */
public final class ClaimLoop<M extends Claimed> {

    private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

    private final String name;
    private final LeasedQueue<M> queue;
    private final BatchStrategy<M> strategy;
    private final LoopSettings settings;
    private final DispatcherMetrics metrics;
    private final BooleanSupplier paused;
    private final Scheduler scheduler;
    private final TransitionWriter writer;

    /** "There may be new work": notifications, intake, reconnects, finished batches that left claimable rows. */
    private final WakeSignal wakeups = new WakeSignal();
    /** "A batch finished": wakes a loop that waits for capacity. */
    private final WakeSignal capacity = new WakeSignal();
    /** "A finished batch may have held back work": its keys are free, so rows it held back are claimable now. */
    private final WakeSignal freed = new WakeSignal();
    /** "The pause switch changed": wakes a paused loop. */
    private final WakeSignal pauseChanges = new WakeSignal();
    /** Wake-ups from outside, so a finished batch can tell whether work arrived while it ran. */
    private final AtomicLong externalWakeups = new AtomicLong();
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Completes when {@link #stop()} is called; a fresh one per run. */
    private volatile Sinks.Empty<Void> stopped = Sinks.empty();
    /** Claimed batches not yet finished; incremented by the loop, decremented when a batch finishes. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Their payload bytes; added by the loop, subtracted when a batch finishes. */
    private final AtomicLong inFlightBytes = new AtomicLong();
    private final AtomicLong turns = new AtomicLong();
    private final AtomicLong claims = new AtomicLong();
    /** Completes when a run's loop has ended (drained or cancelled); a fresh one per run. */
    private volatile Sinks.Empty<Void> finished = Sinks.empty();
    /** Owned by the loop. */
    private volatile long seenGeneration = -1;
    /** Owned by the loop: rows the last claim returned (full: claim again; some: after the linger; none: wait). */
    private volatile int lastClaimSize;
    /** Owned by the loop: the last claim came back full, by rows or by bytes ({@link #fullByBytes}). */
    private volatile boolean lastClaimFull;
    private volatile long lastClaimStartNanos;
    /** Owned by the loop: the wait after the last claim if it found some rows ({@link #stretchedLinger}). */
    private volatile long lingerNanos;
    /** Owned by the loop: the last claim found nothing while batches holding back work were in flight. */
    private volatile boolean heldBack;
    /** Owned by the loop: consecutive claims that found nothing while batches holding back work were in flight. */
    private volatile int heldBackClaims;
    /** Owned by the loop: the {@link #freed} generation when the last claim started, so no finish is missed. */
    private volatile long freedAtClaim;
    private volatile Disposable running;

    /**
     * @param name what logs call this loop ({@code relay}, {@code inbox orders})
     * @param queue the port
     * @param strategy what to do with a batch
     * @param settings the knobs
     * @param metrics counters and warnings
     * @param paused the pause switch (the relay's cluster-wide switch; never for the inbox)
     * @param scheduler where the loop turns and times its waits; a single-thread scheduler of its own in the
     *     service, virtual time in tests
     */
    public ClaimLoop(String name, LeasedQueue<M> queue, BatchStrategy<M> strategy, LoopSettings settings,
            DispatcherMetrics metrics, BooleanSupplier paused, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name, "name");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.paused = Objects.requireNonNull(paused, "paused");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.writer = new TransitionWriter(queue, settings, metrics, scheduler);
        this.lastClaimStartNanos = scheduler.now(TimeUnit.NANOSECONDS) - settings.claimLinger().toNanos();
        this.lingerNanos = settings.claimLinger().toNanos();
    }

    /**
     * Starts claiming. Idempotent while running; after {@link #stop()} completed it starts a new run (Spring stops
     * and restarts lifecycle beans, for one when it pauses a cached test context).
     */
    public synchronized void start() {
        if (running != null && !stopping.get()) {
            return;
        }
        if (running != null) {
            stopping.set(false);
            stopped = Sinks.empty();
            finished = Sinks.empty();
            lastClaimSize = 0;
            lastClaimFull = false;
            heldBack = false;
            heldBackClaims = 0;
            seenGeneration = -1; // work may have arrived while stopped: the new run claims at once, as the first did
        }
        Sinks.Empty<Void> runFinished = finished;
        running = Mono.defer(this::turn)
                // every turn ends on the loop's scheduler, so the repeat never runs on the thread that completed a
                // wait or a claim (an R2DBC event loop, a Kafka thread)
                .publishOn(scheduler)
                .repeat(() -> !stopping.get())
                .flatMap(this::process, Integer.MAX_VALUE) // the bound is the exact in-flight counter of turn()
                .subscribeOn(scheduler)
                .doFinally(signal -> runFinished.tryEmitEmpty())
                .subscribe(null, e -> log.error("{} {} stopped on an unexpected error", name, settings.workerId(), e));
        log.info("{} {} started: batch-size={} max-in-flight-batches={} max-in-flight-bytes={} lease={}"
                        + " poll-interval={} claim-linger={}", name, settings.workerId(), settings.batchSize(),
                settings.maxInFlightBatches(), settings.maxInFlightBytes() == LoopSettings.UNBOUNDED_BYTES ? "-"
                        : settings.maxInFlightBytes(), settings.leaseDuration(), settings.pollInterval(),
                settings.claimLinger());
    }

    /** Signals possible new work (a notification, stored records, a reconnect). Cheap; callable from any thread. */
    public void wake() {
        externalWakeups.incrementAndGet();
        wakeups.wake();
    }

    /** Signals that the pause switch may have changed, so a paused loop looks again at once. */
    public void pauseChanged() {
        pauseChanges.wake();
    }

    /**
     * Stops claiming and drains: in-flight batches finish and write their transitions (the strategy starts nothing
     * new). Completes when drained or after the drain timeout (then in-flight work is cancelled and its leases run
     * out).
     */
    public Mono<Void> stop() {
        return Mono.defer(() -> {
            if (running == null) {
                return Mono.empty();
            }
            stopping.set(true);
            stopped.tryEmitEmpty();
            return finished.asMono()
                    .timeout(settings.drainTimeout(), scheduler)
                    .onErrorResume(e -> {
                        log.warn("{} {} did not drain within {}; cancelling", name, settings.workerId(),
                                settings.drainTimeout());
                        running.dispose();
                        return Mono.empty();
                    })
                    .doOnSuccess(v -> log.info("{} {} stopped", name, settings.workerId()));
        });
    }

    /** Whether the loop has been asked to stop. */
    public boolean isStopping() {
        return stopping.get();
    }

    /** Claimed batches not yet finished. */
    public int inFlightBatches() {
        return inFlight.get();
    }

    /** Payload bytes of the claimed batches not yet finished. */
    public long inFlightBytes() {
        return inFlightBytes.get();
    }

    /** Turns of the loop so far (each claimed or waited once); for tests of the gating. */
    long turns() {
        return turns.get();
    }

    /** Claims started so far. */
    public long claims() {
        return claims.get();
    }

    public LoopSettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- gating

    /**
     * A claimed batch, with the external wake-up count when its claim started, whether it came back full, and its
     * payload bytes.
     */
    private record ClaimedBatch<M>(List<M> messages, long wakeupsAtClaim, boolean full, long bytes) {
    }

    /** One turn: claims (emits a non-empty batch or nothing) or waits for a real change (emits nothing). */
    private Mono<ClaimedBatch<M>> turn() {
        turns.incrementAndGet();
        if (stopping.get()) {
            return Mono.empty();
        }
        long capacitySeen = capacity.generation();
        if (inFlight.get() >= settings.maxInFlightBatches() || inFlightBytes.get() >= settings.maxInFlightBytes()) {
            // A finishing batch wakes us; the generation read before the check means that wake-up cannot be missed.
            return waitFor(capacity.awaitAfter(capacitySeen, settings.pollInterval(), scheduler));
        }
        long pauseSeen = pauseChanges.generation();
        if (paused.getAsBoolean()) {
            // Wake-ups say nothing while paused (the claim that would record them never runs): only a change of the
            // switch, or the poll that re-reads it, is worth a turn.
            return waitFor(pauseChanges.awaitAfter(pauseSeen, settings.pollInterval(), scheduler));
        }
        if (!strategy.available()) {
            return waitFor(Mono.delay(settings.pollInterval(), scheduler).then())
                    .then(Mono.defer(() -> stopping.get() ? Mono.<Void>empty() : strategy.probe()))
                    .then(Mono.empty());
        }
        if (lastClaimFull) {
            return claim();
        }
        if (lastClaimSize > 0) {
            return linger().then(Mono.defer(this::claim));
        }
        if (heldBack) {
            Mono<Void> batchFinished = freed.awaitAfter(freedAtClaim, settings.pollInterval(), scheduler);
            Mono<Void> newWork = wakeups.awaitAfter(seenGeneration, settings.pollInterval(), scheduler)
                    .then(Mono.defer(() -> waitSinceLastClaim(heldBackLinger(lingerNanos, heldBackClaims,
                            settings.pollInterval().toNanos()))));
            return waitFor(Mono.firstWithSignal(batchFinished, newWork)).then(Mono.defer(this::claimUnlessStopping));
        }
        return waitFor(wakeups.awaitAfter(seenGeneration, settings.pollInterval(), scheduler))
                .then(Mono.defer(this::linger))
                .then(Mono.defer(this::claimUnlessStopping));
    }

    /**
     * A claim, unless {@link #stop()} was called or the loop was paused during the wait before it: a wait for work
     * does not watch the pause switch, and rows written after a pause must not buy a claim with their notification
     * (the next turn sees the switch and waits for it instead).
     */
    private Mono<ClaimedBatch<M>> claimUnlessStopping() {
        return stopping.get() || paused.getAsBoolean() ? Mono.empty() : claim();
    }

    /** {@code wait}, cut short by {@link #stop()}; emits nothing. */
    private <T> Mono<T> waitFor(Mono<Void> wait) {
        return Mono.firstWithSignal(wait, stopped.asMono()).then(Mono.empty());
    }

    /**
     * Rows a second up to which a stream of partial claims keeps the configured {@code claimLinger}; above it the
     * linger stretches in proportion to the rate ({@link #stretchedLinger}).
     */
    static final double STREAM_RATE = 500;
    /** The most the linger stretches under a fast stream: this many times {@code claimLinger}. */
    static final int MAX_STRETCH = 4;

    /**
     * The wait after a partial claim: {@code claimLinger}, stretched under a fast stream to {@code claimLinger x rate /
     * STREAM_RATE}, at most {@code MAX_STRETCH} times. Why: every claim and its batch cost the same fixed work whatever
     * they carry (two statements, their commits and plans, a batch's Reactor chains and sends), and a relay behind HTTP
     * ingest at 2,000-3,000 messages a second claimed every 5 ms, 12-17 rows at a time: with a fixed 20 ms linger the
     * same service took 15-22% more single-message requests a second (wrk, pairwise), and with this stretch 12 and 23%
     * more, at a fifth less PostgreSQL CPU per request. Under a slow stream (300 a second) the claims are cheap for an
     * idle machine, so the linger, and the latency it adds, stays as configured.
     *
     * @param rows the rows the last claim found (fewer than a batch)
     * @param sinceClaimBeforeNanos the time from the claim before it (which also found rows, fewer than a batch) to
     *     its start: the window those rows arrived in
     */
    static long stretchedLinger(long lingerNanos, int rows, long sinceClaimBeforeNanos) {
        if (sinceClaimBeforeNanos <= 0 || rows <= 0) {
            return lingerNanos;
        }
        double perSecond = rows * 1e9 / sinceClaimBeforeNanos;
        double stretch = Math.min(MAX_STRETCH, Math.max(1.0, perSecond / STREAM_RATE));
        return (long) (lingerNanos * stretch);
    }

    /**
     * Whether a claim of {@code rows} rows and {@code bytes} payload bytes, given {@code budget} bytes, came back full
     * by bytes: less is left of the budget than the claim's mean row, so a claim cut short by the budget (it stops
     * before the row that would pass it) counts as full and the loop claims again as soon as there is room, rather
     * than lingering as after a partial claim.
     */
    static boolean fullByBytes(long bytes, int rows, long budget) {
        return rows > 0 && budget - bytes < bytes / rows;
    }

    /**
     * The wait before a claim on new work after {@code emptyClaims} consecutive claims that found nothing because
     * batches in flight held back every row: the stream's linger, doubled for each such claim after the first, at
     * most {@code pollNanos}. Why: with per-key order, a batch in flight that holds every key with rows (64 keys,
     * a stalled batch of 76 rows in a 2,000/s run) makes every claim before it finishes come back empty, and such a
     * batch stalls when the machine is busiest; one empty claim every 6.7 ms linger for its 128 ms (16 in a row) was
     * what the loop did (ClaimLoop DEBUG log), each a statement that walks every key. The finish of the batch still
     * claims at once; only rows on keys no batch holds may wait longer, and never more than the poll interval.
     */
    static long heldBackLinger(long lingerNanos, int emptyClaims, long pollNanos) {
        int doublings = Math.min(Math.max(emptyClaims - 1, 0), 30);
        return lingerNanos > pollNanos >> doublings ? pollNanos : lingerNanos << doublings;
    }

    /** Waits out the rest of the linger ({@link #stretchedLinger}) since the previous claim started. */
    private Mono<Void> linger() {
        return waitSinceLastClaim(lingerNanos);
    }

    /** Waits until {@code nanos} have passed since the previous claim started. */
    private Mono<Void> waitSinceLastClaim(long nanos) {
        long remaining = nanos
                - (scheduler.now(TimeUnit.NANOSECONDS) - lastClaimStartNanos);
        return remaining > 0 ? waitFor(Mono.delay(Duration.ofNanos(remaining), scheduler).then()) : Mono.empty();
    }

    private Mono<ClaimedBatch<M>> claim() {
        seenGeneration = wakeups.generation();
        freedAtClaim = freed.generation();
        long external = externalWakeups.get();
        long start = scheduler.now(TimeUnit.NANOSECONDS);
        // the window this claim's rows arrived in, when the claim before it also found some but not a full batch,
        // or found none only because batches in flight held their keys (the stream went on behind them)
        boolean streaming = (lastClaimSize > 0 && !lastClaimFull) || heldBack;
        long sinceClaimBefore = start - lastClaimStartNanos;
        lastClaimStartNanos = start;
        claims.incrementAndGet();
        long budget = settings.maxInFlightBytes() - inFlightBytes.get(); // positive: turn() checked it
        return Mono.defer(() -> queue.claim(settings.workerId(), settings.batchSize(), budget,
                        settings.leaseDuration()))
                .publishOn(scheduler)
                .map(batch -> {
                    long bytes = 0;
                    for (M m : batch) {
                        bytes += m.payloadBytes();
                    }
                    return new ClaimedBatch<>(batch, external, batch.size() >= settings.batchSize()
                            || fullByBytes(bytes, batch.size(), budget), bytes);
                })
                .doOnNext(claimed -> {
                    List<M> batch = claimed.messages();
                    lastClaimSize = batch.size();
                    lastClaimFull = claimed.full();
                    heldBack = batch.isEmpty() && strategy.holdsBackWork() && inFlight.get() > 0;
                    heldBackClaims = heldBack ? heldBackClaims + 1 : 0;
                    if (!heldBack) { // held back, the stream's linger stays: the rows are still arriving
                        lingerNanos = streaming
                                ? stretchedLinger(settings.claimLinger().toNanos(), batch.size(), sinceClaimBefore)
                                : settings.claimLinger().toNanos();
                    }
                    metrics.leaseExpirations(queue.queue(), batch.stream().filter(Claimed::leaseExpired).count());
                    if (log.isDebugEnabled()) {
                        log.debug("{} {}: claimed {} rows in {} us, {} batches in flight, next linger {} us", name,
                                settings.workerId(), batch.size(),
                                (scheduler.now(TimeUnit.NANOSECONDS) - start) / 1000, inFlight.get(),
                                lingerNanos / 1000);
                    }
                })
                .filter(claimed -> !claimed.messages().isEmpty())
                .doOnNext(claimed -> {
                    inFlight.incrementAndGet();
                    inFlightBytes.addAndGet(claimed.bytes());
                })
                .onErrorResume(e -> {
                    log.warn("{} {}: claim failed ({}); retrying after {}", name, settings.workerId(), e.toString(),
                            settings.pollInterval());
                    lastClaimSize = 0;
                    lastClaimFull = false;
                    heldBack = false;
                    heldBackClaims = 0;
                    return waitFor(Mono.delay(settings.pollInterval(), scheduler).then());
                });
    }

    // ---------------------------------------------------------------- one batch

    private Mono<Void> process(ClaimedBatch<M> claimed) {
        List<M> messages = claimed.messages();
        // by id: hashing the claimed rows themselves (records of a dozen components) cost more than the lookups
        Map<String, M> open = new ConcurrentHashMap<>(messages.size() * 2);
        messages.forEach(m -> open.put(m.leased().id().value(), m));
        BatchStrategy.Batch<M> batch = new BatchStrategy.Batch<>() {
            @Override
            public List<M> messages() {
                return messages;
            }

            @Override
            public boolean stopping() {
                return stopping.get();
            }

            @Override
            public void written(M message) {
                open.remove(message.leased().id().value());
            }
        };
        AtomicBoolean rowsBack = new AtomicBoolean();
        Mono<List<Attempt<M>>> worked = Mono.defer(() -> strategy.work(batch)).flatMap(this::deadLettersFirst).cache();
        Mono<Void> renewals = Flux.interval(settings.renewEvery(), settings.renewEvery(), scheduler)
                .onBackpressureDrop()
                .takeUntilOther(worked)
                .concatMap(tick -> writer.renew(List.copyOf(open.values())))
                .then();
        return Mono.when(worked, renewals)
                .then(worked)
                .flatMap(attempts -> writer.write(attempts, rowsBack))
                .onErrorResume(e -> {
                    log.error("{} {}: batch of {} failed unexpectedly; releasing it", name, settings.workerId(),
                            messages.size(), e);
                    rowsBack.set(true);
                    return writer.release(List.copyOf(open.values()));
                })
                .doFinally(signal -> {
                    boolean rowsWaiting = rowsBack.get() || mayHaveHeldBackRows(claimed);
                    if (log.isDebugEnabled()) {
                        log.debug("{} {}: batch of {} finished ({}), rows may be waiting for it: {}", name,
                                settings.workerId(), messages.size(), signal, rowsWaiting);
                    }
                    inFlightBytes.addAndGet(-claimed.bytes());
                    inFlight.decrementAndGet();
                    capacity.wake();
                    if (rowsWaiting) {
                        freed.wake();
                        wakeups.wake();
                    }
                });
    }

    /**
     * {@code attempts}, once the strategy has had the messages the domain's decision dead-letters
     * ({@link BatchStrategy#beforeDeadLetter}); at once when there are none.
     */
    private Mono<List<Attempt<M>>> deadLettersFirst(List<Attempt<M>> attempts) {
        List<BatchStrategy.DeadLetter<M>> deadLetters = new ArrayList<>(0);
        for (Attempt<M> attempt : attempts) {
            if (attempt instanceof Attempt.Dispatched<M> d) {
                DispatchDecision.deadLetter(d.result(), d.message().leased().attempts(), settings.retryPolicy())
                        .ifPresent(dead -> deadLetters.add(new BatchStrategy.DeadLetter<>(d.message(), dead.reason())));
            }
        }
        if (deadLetters.isEmpty()) {
            return Mono.just(attempts);
        }
        return Mono.defer(() -> strategy.beforeDeadLetter(List.copyOf(deadLetters)))
                .onErrorResume(e -> {
                    log.warn("{} {}: handing on {} dead letters failed ({}); they are dead-lettered in the table alone",
                            name, settings.workerId(), deadLetters.size(), e.toString());
                    return Mono.empty();
                })
                .thenReturn(attempts);
    }

    /** A leased key's later rows wait for its lease: rows that arrived meanwhile, or rows a full claim left. */
    private boolean mayHaveHeldBackRows(ClaimedBatch<M> claimed) {
        return strategy.holdsBackWork() && (claimed.full() || externalWakeups.get() > claimed.wakeupsAtClaim()
                || strategy.mayHaveLeftRowsOfItsKeys(claimed.messages()));
    }
}
