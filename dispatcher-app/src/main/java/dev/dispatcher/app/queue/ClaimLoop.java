package dev.dispatcher.app.queue;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.MessageLogContext;
import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.LeasedQueue;
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
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;
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
 * will really change, so no turn repeats synchronously (least of all on the R2DBC event loop that delivered a
 * notification). In order:
 * <ul>
 *   <li>{@code maxInFlightBatches} unfinished batches, or their payloads at {@code maxInFlightBytes}: wait for one
 *       to finish (or the poll interval); otherwise a claim is given the bytes the batches in flight leave;</li>
 *   <li>paused: wait for the pause switch to change (or the poll interval); wake-ups are ignored meanwhile;</li>
 *   <li>destination unavailable (the relay's open breaker): wait a poll interval, then probe; claim nothing;</li>
 *   <li>otherwise {@link ClaimPacing} decides from the last claim's outcome: at once after a full claim, a linger
 *       after a partial one, after a wake-up (or when a batch that held back work finishes) after an empty one.</li>
 * </ul>
 * A wake-up is never missed: each wait starts from a signal generation read before the state it waits on. A finished
 * batch frees capacity, and wakes the loop only when rows may be waiting for it: rows it gave back, or (when the
 * strategy {@linkplain BatchStrategy#holdsBackWork() holds back work}) a full batch or one during which new work was
 * signalled. Leased rows never exceed {@code maxInFlightBatches} x {@code batchSize}.
 *
 * <p><b>Writing.</b> The strategy is called once per batch ({@link BatchStrategy#work}). The loop decides each of its
 * attempts once ({@link DecidedTransition}: the domain's {@code DispatchDecision}, so a retry's jitter is drawn once),
 * hands the messages it dead-letters to its {@link DeadLetterPort} first (a dead-letter topic, while the batch's
 * leases are still renewed), and writes the batch's decided transitions in one statement, retried
 * with backoff while {@link DatabaseFailures} calls the error retryable (safe: a lost commit acknowledgement is
 * recognised as our own write). A write that still fails is counted as {@code persist_rejected}; the leases run out
 * and the rows are claimed again. Every outcome is counted; non-applied ones are warned about and never counted as
 * success.
 *
 * <p>Thread-safety: {@link #wake()}, {@link #pauseChanged()} and {@link #stop()} may be called from any thread.
 * Claim-loop state (the pacing, the generations seen) is owned by the loop (one turn at a time); shared counters
 * are atomics.
 *
 * @param <M> the claimed row type
 */
public final class ClaimLoop<M extends Claimed> {

    private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);

    private final String name;
    private final LeasedQueue<M> queue;
    private final BatchStrategy<M> strategy;
    private final DeadLetterPort<M> deadLetters;
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
    /** Owned by the loop: when the next claim may start, from the last claim's outcome. */
    private volatile ClaimPacing pacing;
    /** Owned by the loop: the {@link #freed} generation when the last claim started, so no finish is missed. */
    private volatile long freedAtClaim;
    private volatile Disposable running;

    /**
     * @param name what logs call this loop ({@code relay}, {@code inbox orders})
     * @param queue the port
     * @param strategy what to do with a batch
     * @param deadLetters where the messages the loop dead-letters go before their transitions are written ({@link
     *     DeadLetterPort#none()}: the table alone)
     * @param settings the knobs
     * @param metrics counters and warnings
     * @param paused the pause switch (the relay's cluster-wide switch; never for the inbox)
     * @param scheduler where the loop turns and times its waits; a single-thread scheduler of its own in the
     *     service, virtual time in tests
     */
    public ClaimLoop(String name, LeasedQueue<M> queue, BatchStrategy<M> strategy, DeadLetterPort<M> deadLetters,
            LoopSettings settings, DispatcherMetrics metrics, BooleanSupplier paused, Scheduler scheduler) {
        this.name = Objects.requireNonNull(name, "name");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.paused = Objects.requireNonNull(paused, "paused");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.writer = new TransitionWriter(queue, settings, metrics, scheduler);
        this.pacing = ClaimPacing.initial(settings, scheduler.now(TimeUnit.NANOSECONDS));
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
            pacing = pacing.restarted();
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
                .subscribe(null, e -> event(Level.ERROR).setCause(e).log("{} {} stopped on an unexpected error",
                        name, settings.workerId()));
        event(Level.INFO).log("{} {} started: batch-size={} max-in-flight-batches={} max-in-flight-bytes={} lease={}"
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
                        event(Level.WARN).log("{} {} did not drain within {}; cancelling", name, settings.workerId(),
                                settings.drainTimeout());
                        running.dispose();
                        return Mono.empty();
                    })
                    .doOnSuccess(v -> event(Level.INFO).log("{} {} stopped", name, settings.workerId()));
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
        return switch (pacing.next()) {
            case ClaimPacing.ClaimNow now -> claim();
            case ClaimPacing.ClaimAt at -> waitUntil(at.atNanos()).then(Mono.defer(this::claim));
            case ClaimPacing.ClaimOnFreedOrWakeup on -> {
                Mono<Void> batchFinished = freed.awaitAfter(freedAtClaim, settings.pollInterval(), scheduler);
                Mono<Void> newWork = wakeups.awaitAfter(seenGeneration, settings.pollInterval(), scheduler)
                        .then(Mono.defer(() -> waitUntil(on.atNanos())));
                yield waitFor(Mono.firstWithSignal(batchFinished, newWork))
                        .then(Mono.defer(this::claimUnlessStopping));
            }
            case ClaimPacing.ClaimOnWakeup on -> waitFor(wakeups.awaitAfter(seenGeneration, settings.pollInterval(),
                    scheduler))
                    .then(Mono.defer(() -> waitUntil(on.atNanos())))
                    .then(Mono.defer(this::claimUnlessStopping));
        };
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
     * Whether a claim of {@code rows} rows and {@code bytes} payload bytes, given {@code budget} bytes, came back full
     * by bytes: less is left of the budget than the claim's mean row, so a claim cut short by the budget (it stops
     * before the row that would pass it) counts as full and the loop claims again as soon as there is room, rather
     * than lingering as after a partial claim.
     */
    static boolean fullByBytes(long bytes, int rows, long budget) {
        return rows > 0 && budget - bytes < bytes / rows;
    }

    /** Waits until {@code atNanos} on the loop's clock, cut short by {@link #stop()}; at once if it has passed. */
    private Mono<Void> waitUntil(long atNanos) {
        long remaining = ClaimPacing.delay(atNanos, scheduler.now(TimeUnit.NANOSECONDS));
        return remaining > 0 ? waitFor(Mono.delay(Duration.ofNanos(remaining), scheduler).then()) : Mono.empty();
    }

    private Mono<ClaimedBatch<M>> claim() {
        seenGeneration = wakeups.generation();
        freedAtClaim = freed.generation();
        long external = externalWakeups.get();
        long start = scheduler.now(TimeUnit.NANOSECONDS);
        pacing = pacing.started(start);
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
                    pacing = pacing.claimed(batch.size(), claimed.full(),
                            batch.isEmpty() && strategy.holdsBackWork() && inFlight.get() > 0);
                    metrics.leaseExpirations(queue.queue(), batch.stream().filter(Claimed::leaseExpired).count());
                    if (log.isDebugEnabled()) {
                        log.debug("{} {}: claimed {} rows in {} us, {} batches in flight, next linger {} us", name,
                                settings.workerId(), batch.size(),
                                (scheduler.now(TimeUnit.NANOSECONDS) - start) / 1000, inFlight.get(),
                                pacing.lingerNanos() / 1000);
                    }
                })
                .filter(claimed -> !claimed.messages().isEmpty())
                .doOnNext(claimed -> {
                    inFlight.incrementAndGet();
                    inFlightBytes.addAndGet(claimed.bytes());
                })
                .onErrorResume(e -> {
                    event(Level.WARN).log("{} {}: claim failed ({}); retrying after {}", name, settings.workerId(),
                            e.toString(), settings.pollInterval());
                    pacing = pacing.failed();
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
        Mono<List<DecidedTransition<M>>> worked = Mono.defer(() -> strategy.work(batch))
                .map(attempts -> DecidedTransition.all(attempts, settings.retryPolicy()))
                .flatMap(this::deadLettersFirst)
                .cache();
        Mono<Void> renewals = Flux.interval(settings.renewEvery(), settings.renewEvery(), scheduler)
                .onBackpressureDrop()
                .takeUntilOther(worked)
                .concatMap(tick -> writer.renew(List.copyOf(open.values())))
                .then();
        return Mono.when(worked, renewals)
                .then(worked)
                .flatMap(decided -> writer.write(decided, rowsBack))
                .onErrorResume(e -> {
                    event(Level.ERROR).setCause(e).log("{} {}: batch of {} failed unexpectedly; releasing it", name,
                            settings.workerId(), messages.size());
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
     * {@code decided}, once the dead-letter port has had the messages it dead-letters ({@link DeadLetterPort#handOn});
     * at once when there are none.
     */
    private Mono<List<DecidedTransition<M>>> deadLettersFirst(List<DecidedTransition<M>> decided) {
        List<DeadLetterPort.DeadLetter<M>> letters = new ArrayList<>(0);
        decided.forEach(each -> each.deadLetter().ifPresent(letters::add));
        if (letters.isEmpty()) {
            return Mono.just(decided);
        }
        return Mono.defer(() -> deadLetters.handOn(List.copyOf(letters)))
                .onErrorResume(e -> {
                    event(Level.WARN).log("{} {}: handing on {} dead letters failed ({}); they are dead-lettered in the"
                            + " table alone", name, settings.workerId(), letters.size(), e.toString());
                    return Mono.empty();
                })
                .thenReturn(decided);
    }

    /** An event of this loop's own, carrying its source as a key-value pair ({@link MessageLogContext#SOURCE}). */
    private LoggingEventBuilder event(Level level) {
        return log.atLevel(level).addKeyValue(MessageLogContext.SOURCE, metrics.source());
    }

    /** A leased key's later rows wait for its lease: rows that arrived meanwhile, or rows a full claim left. */
    private boolean mayHaveHeldBackRows(ClaimedBatch<M> claimed) {
        return strategy.holdsBackWork() && (claimed.full() || externalWakeups.get() > claimed.wakeupsAtClaim()
                || strategy.mayHaveLeftRowsOfItsKeys(claimed.messages()));
    }
}
