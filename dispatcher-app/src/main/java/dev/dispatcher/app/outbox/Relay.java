package dev.dispatcher.app.outbox;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.Result;
import dev.dispatcher.app.store.ClaimedMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.app.store.WakeSignal;
import dev.dispatcher.domain.DispatchDecision;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.r2dbc.spi.R2dbcBadGrammarException;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import io.r2dbc.spi.R2dbcException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * The outbox relay: claims leased batches, publishes them, and writes their transitions.
 *
 * <p>Pull-based: a batch is claimed only when fewer than {@code maxInFlightBatches} are unfinished, so leased but
 * unfinished rows never exceed {@code maxInFlightBatches x batchSize}. A full batch claims again at once; otherwise
 * the relay waits for {@link #wake()} (driven by {@code LISTEN/NOTIFY}) or the poll interval, and starts a claim no
 * sooner than {@code claimLinger} after the previous one: under a steady trickle every insert notifies, and
 * claiming per notification would spend a claim and a transition statement (and their planning) on each row. A
 * claim that found rows is followed by another after the linger without waiting for a notification: writers that
 * commit while another one is notifying skip their own notification (migration V2), so rows may still be arriving;
 * only a claim that finds nothing goes back to waiting.
 * A finished batch frees capacity but wakes the claim loop only when rows may be waiting for it: rows it gave
 * back, or (per-key) rows of its keys that arrived while it held them or that its full claim left behind. An
 * empty claim costs as much planning as a full one.
 *
 * <p>Each batch is split into lanes (a key's run, in seq order; rows without a key, or every row with
 * {@code ordering=none}, share an unordered lane), lanes are published concurrently, and every message's result
 * goes through {@link DispatchDecision}. In an ordered lane, the rows after the first failure are released. The
 * batch's transitions are one statement; their outcomes drive metrics, and non-applied outcomes are never counted
 * as published. In-flight leases are renewed every third of the lease.
 *
 * <p>Broker-availability failures feed the circuit breaker; while it is open the relay claims nothing and probes
 * Kafka with an admin call every poll interval, half-opening when it answers. Unavailable sends release their rows
 * without spending attempts.
 *
 * <p>{@link #stop()} stops claiming, lets in-flight batches finish and write their transitions (lanes not yet handed
 * off are released), and completes when they are done or the drain timeout passes.
 */
public final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    private static final Object TICK = new Object();

    private final OutboxStore store;
    private final RecordPublisher publisher;
    private final RelaySettings settings;
    private final CircuitBreaker breaker;
    private final DispatcherMetrics metrics;
    private final BooleanSupplier paused;

    /** "There may be new work": notifications, reconnects, finished batches that left claimable rows. */
    private final WakeSignal wakeups = new WakeSignal();
    /** "A batch finished": wakes a claim loop that waits for capacity. */
    private final WakeSignal capacity = new WakeSignal();
    /** Notifications from outside (inserts, reconnects), so a batch can tell whether rows arrived meanwhile. */
    private final AtomicLong notifications = new AtomicLong();
    private volatile long lastClaimStartNanos = System.nanoTime();
    /** Owned by the claim loop (claims run one at a time). */
    private volatile long seenGeneration = -1;
    /**
     * Rows the last claim returned: full, claim again at once; some, more may be committing (a writer that skipped
     * its notification), so look again after the linger; none, wait for a notification.
     */
    private volatile int lastClaimSize;
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Claimed batches not yet finished; incremented by the claim loop, decremented when a batch finishes. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Sinks.Empty<Void> finished = Sinks.empty();
    private volatile Disposable running;

    public Relay(OutboxStore store, RecordPublisher publisher, RelaySettings settings, CircuitBreaker breaker,
            DispatcherMetrics metrics, BooleanSupplier paused) {
        this.store = Objects.requireNonNull(store, "store");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.paused = Objects.requireNonNull(paused, "paused");
    }

    /** Starts claiming. Idempotent. */
    public synchronized void start() {
        if (running != null) {
            return;
        }
        running = Flux.<Object>generate(sink -> {
                    if (stopping.get()) {
                        sink.complete();
                    } else {
                        sink.next(TICK);
                    }
                })
                .concatMap(tick -> nextBatch(), 0)
                // The bound is the in-flight counter checked by gate(), exact and refilled as soon as any batch
                // finishes; flatMap's own concurrency would only replenish after several completions.
                .flatMap(this::process, Integer.MAX_VALUE)
                .subscribeOn(Schedulers.parallel())
                .doFinally(signal -> finished.tryEmitEmpty())
                .subscribe(null, e -> log.error("relay {} stopped on an unexpected error", settings.workerId(), e));
        log.info("relay {} started: batch-size={} max-in-flight-batches={} publish-concurrency={} ordering={}",
                settings.workerId(), settings.batchSize(), settings.maxInFlightBatches(),
                settings.publishConcurrency(), settings.ordering());
    }

    /** Signals new work (a notification arrived, or a listener reconnected). Cheap, callable from any thread. */
    public void wake() {
        notifications.incrementAndGet();
        wakeups.wake();
    }

    /**
     * Stops claiming and drains: in-flight batches finish and write their transitions; lanes not yet handed off
     * are released. Completes when drained or after the drain timeout (then in-flight work is cancelled and its
     * leases run out).
     */
    public Mono<Void> stop() {
        return Mono.defer(() -> {
            if (running == null) {
                return Mono.empty();
            }
            stopping.set(true);
            wake();
            capacity.wake();
            return finished.asMono()
                    .timeout(settings.drainTimeout())
                    .onErrorResume(e -> {
                        log.warn("relay {} did not drain within {}; cancelling", settings.workerId(),
                                settings.drainTimeout());
                        running.dispose();
                        return Mono.empty();
                    })
                    .doOnSuccess(v -> log.info("relay {} stopped", settings.workerId()));
        });
    }

    /** Whether the relay has been asked to stop. */
    public boolean isStopping() {
        return stopping.get();
    }

    public RelaySettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- claiming

    /** A claimed batch, with the notification count when its claim started and whether it came back full. */
    private record Claimed(List<ClaimedMessage> messages, long notificationsAtClaim, boolean full) {
    }

    private Mono<Claimed> nextBatch() {
        return Mono.defer(() -> stopping.get() ? Mono.<Claimed>empty() : gate().flatMap(go -> go
                        ? claim()
                        : Mono.empty()))
                .repeatWhenEmpty(repeats -> repeats.takeWhile(r -> !stopping.get()));
    }

    /**
     * Completes with whether to claim now: waits for capacity and for work, honours the pause switch and the open
     * breaker.
     */
    private Mono<Boolean> gate() {
        long seen = capacity.generation();
        if (inFlight.get() >= settings.maxInFlightBatches()) {
            // A finishing batch wakes us; the generation read first means that wake-up cannot be missed.
            return capacity.awaitAfter(seen, settings.pollInterval()).thenReturn(false);
        }
        if (paused.getAsBoolean()) {
            return waitForWakeOrPoll().thenReturn(false);
        }
        if (breaker.getState() == CircuitBreaker.State.OPEN) {
            return Mono.delay(settings.pollInterval())
                    .then(publisher.probe(settings.pollInterval().plusSeconds(1)))
                    .map(up -> {
                        if (up) {
                            log.info("relay {}: Kafka answers again; half-opening the circuit breaker",
                                    settings.workerId());
                            breaker.transitionToHalfOpenState();
                        }
                        return up;
                    });
        }
        if (isFull(lastClaimSize)) {
            return Mono.just(true);
        }
        if (lastClaimSize > 0) {
            return linger().thenReturn(true);
        }
        return waitForWakeOrPoll().then(Mono.defer(this::linger)).thenReturn(true);
    }

    private boolean isFull(int claimed) {
        return claimed >= settings.batchSize();
    }

    /** Waits out the rest of {@code claimLinger} since the previous claim started, so rows arriving meanwhile share one claim. */
    private Mono<Void> linger() {
        long remaining = settings.claimLinger().toNanos() - (System.nanoTime() - lastClaimStartNanos);
        return remaining > 0 ? Mono.delay(Duration.ofNanos(remaining)).then() : Mono.empty();
    }

    private Mono<Void> waitForWakeOrPoll() {
        return waitForWakeAfter(seenGeneration);
    }

    private Mono<Void> waitForWakeAfter(long seen) {
        return wakeups.awaitAfter(seen, settings.pollInterval());
    }

    private Mono<Claimed> claim() {
        seenGeneration = wakeups.generation();
        long notified = notifications.get();
        lastClaimStartNanos = System.nanoTime();
        return store.claimBatch(settings.workerId(), settings.batchSize(), settings.leaseDuration(),
                        settings.ordering())
                .doOnNext(batch -> {
                    lastClaimSize = batch.size();
                    metrics.leaseExpirations(Queue.OUTBOX, batch.stream().filter(ClaimedMessage::leaseExpired).count());
                })
                .filter(batch -> !batch.isEmpty())
                .map(batch -> new Claimed(batch, notified, isFull(batch.size())))
                .doOnNext(batch -> inFlight.incrementAndGet())
                .onErrorResume(e -> {
                    log.warn("relay {}: claim failed ({}); retrying after {}", settings.workerId(), e.toString(),
                            settings.pollInterval());
                    lastClaimSize = 0;
                    return Mono.delay(settings.pollInterval()).then(Mono.empty());
                });
    }

    // ---------------------------------------------------------------- one batch

    /** A claimed message with the result of its dispatch attempt. */
    private record Attempt(ClaimedMessage message, DispatchResult result) {
    }

    private Mono<Void> process(Claimed claimed) {
        List<ClaimedMessage> batch = claimed.messages();
        // Rows this batch may hand back claimable at once (released after a failure or a refused send).
        AtomicBoolean rowsBack = new AtomicBoolean();
        Mono<List<Attempt>> sent = Flux.fromIterable(lanes(batch))
                .flatMap(this::publishLane, settings.publishConcurrency())
                .flatMapIterable(attempts -> attempts)
                .collectList()
                .doOnNext(attempts -> {
                    if (attempts.stream().anyMatch(a -> !(a.result() instanceof DispatchResult.Published))) {
                        rowsBack.set(true);
                    }
                })
                .cache();
        Mono<Void> renewals = Flux.interval(settings.renewEvery()).onBackpressureDrop()
                .takeUntilOther(sent)
                .concatMap(tick -> renew(batch))
                .then();
        return Mono.when(sent, renewals)
                .then(sent)
                .flatMap(this::write)
                .onErrorResume(e -> {
                    log.error("relay {}: batch of {} failed unexpectedly; releasing it", settings.workerId(),
                            batch.size(), e);
                    rowsBack.set(true);
                    return releaseAll(batch);
                })
                .doFinally(signal -> {
                    inFlight.decrementAndGet();
                    capacity.wake();
                    if (rowsBack.get() || mayHaveHeldBackRows(claimed)) {
                        wakeups.wake();
                    }
                });
    }

    /**
     * Per-key, a leased key's later rows wait for its lease: rows that arrived while this batch held its keys
     * (a notification since its claim started), or rows its full claim had no room for.
     */
    private boolean mayHaveHeldBackRows(Claimed claimed) {
        return settings.ordering() == Ordering.PER_KEY
                && (claimed.full() || notifications.get() > claimed.notificationsAtClaim());
    }

    /** A key's run (ordered) or a group of rows that need no order. */
    private record Lane(List<ClaimedMessage> messages, boolean ordered) {
    }

    private List<Lane> lanes(List<ClaimedMessage> batch) {
        return switch (settings.ordering()) {
            case NONE -> List.of(new Lane(batch, false));
            case PER_KEY -> {
                Map<String, List<ClaimedMessage>> runs = new LinkedHashMap<>();
                List<ClaimedMessage> unkeyed = new ArrayList<>();
                for (ClaimedMessage m : batch) {
                    if (m.key() == null) {
                        unkeyed.add(m);
                    } else {
                        runs.computeIfAbsent(m.key(), k -> new ArrayList<>()).add(m);
                    }
                }
                List<Lane> lanes = new ArrayList<>(runs.size() + 1);
                runs.values().forEach(run -> {
                    run.sort((a, b) -> Long.compare(a.leased().seq(), b.leased().seq()));
                    lanes.add(new Lane(run, true));
                });
                if (!unkeyed.isEmpty()) {
                    lanes.add(new Lane(unkeyed, false));
                }
                yield lanes;
            }
        };
    }

    private Mono<List<Attempt>> publishLane(Lane lane) {
        if (stopping.get()) {
            return Mono.just(notAttempted(lane, "relay shutting down"));
        }
        if (!breaker.tryAcquirePermission()) {
            return Mono.just(notAttempted(lane, "circuit breaker open"));
        }
        List<OutboundRecord> records = lane.messages().stream().map(Relay::toRecord).toList();
        long start = System.nanoTime();
        return publisher.publish(records, lane.ordered())
                .map(results -> {
                    Duration latency = Duration.ofNanos(System.nanoTime() - start);
                    Instant now = Instant.now();
                    List<Attempt> attempts = new ArrayList<>(results.size());
                    boolean blocked = false;
                    for (int i = 0; i < results.size(); i++) {
                        ClaimedMessage m = lane.messages().get(i);
                        DispatchResult r = results.get(i);
                        if (r instanceof DispatchResult.Published) {
                            metrics.publishLatency(latency);
                            metrics.commitToPublish(Duration.between(m.createdAt(), now));
                        } else if (blocked) {
                            r = new DispatchResult.NotAttempted("an earlier message of key " + m.key() + " failed");
                        } else {
                            blocked = lane.ordered();
                        }
                        attempts.add(new Attempt(m, r));
                    }
                    feedBreaker(results, latency);
                    return attempts;
                });
    }

    /** Never throws: a breaker problem must not cost the batch its transitions. */
    private void feedBreaker(List<DispatchResult> results, Duration latency) {
        try {
            recordOnBreaker(results, latency);
        } catch (RuntimeException e) {
            log.warn("relay {}: circuit breaker could not record a result: {}", settings.workerId(), e.toString());
        }
    }

    private void recordOnBreaker(List<DispatchResult> results, Duration latency) {
        boolean unavailable = results.stream().anyMatch(r ->
                r instanceof DispatchResult.Failed f && f.kind() == FailureKind.UNAVAILABLE);
        if (unavailable) {
            breaker.onError(latency.toNanos(), TimeUnit.NANOSECONDS, new KafkaUnavailableException());
        } else {
            breaker.onSuccess(latency.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private static List<Attempt> notAttempted(Lane lane, String reason) {
        DispatchResult result = new DispatchResult.NotAttempted(reason);
        return lane.messages().stream().map(m -> new Attempt(m, result)).toList();
    }

    static OutboundRecord toRecord(ClaimedMessage m) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("message-id", m.leased().id().value());
        headers.put("event-type", m.eventType());
        headers.put("content-type", m.contentType());
        if (m.correlationId() != null) {
            headers.put("correlation-id", m.correlationId());
        }
        if (m.causationId() != null) {
            headers.put("causation-id", m.causationId());
        }
        // Stored headers (traceparent among them when the producer sent one) never override the reserved ones.
        m.headers().forEach(headers::putIfAbsent);
        return new OutboundRecord(m.topic(), m.key(), m.payload(), headers);
    }

    /**
     * Gives a batch back after an unexpected failure, so its rows are claimable at once instead of after the
     * lease. Rows already published are sent again (at least once); releasing spends no attempt.
     */
    private Mono<Void> releaseAll(List<ClaimedMessage> batch) {
        List<TransitionRequest> requests = batch.stream()
                .map(m -> new TransitionRequest(m.leased(), new Transition.Release()))
                .toList();
        return store.transition(requests)
                .doOnNext(results -> record(requests, results))
                .onErrorResume(e -> {
                    log.warn("relay {}: releasing a failed batch failed too ({}); its leases will expire",
                            settings.workerId(), e.toString());
                    return Mono.empty();
                })
                .then();
    }

    private Mono<Void> renew(List<ClaimedMessage> batch) {
        List<TransitionRequest> requests = batch.stream()
                .map(m -> new TransitionRequest(m.leased(), new Transition.RenewLease(settings.leaseDuration())))
                .toList();
        return store.transition(requests)
                .doOnNext(results -> {
                    for (int i = 0; i < results.size(); i++) {
                        metrics.transition(Queue.OUTBOX, settings.workerId(), requests.get(i).transition(),
                                results.get(i));
                    }
                })
                .onErrorResume(e -> {
                    log.warn("relay {}: lease renewal failed: {}", settings.workerId(), e.toString());
                    return Mono.empty();
                })
                .then();
    }

    // ---------------------------------------------------------------- transitions

    private Mono<Void> write(List<Attempt> attempts) {
        List<TransitionRequest> requests = new ArrayList<>(attempts.size());
        long failed = 0;
        for (Attempt a : attempts) {
            if (a.result() instanceof DispatchResult.Failed) {
                failed++;
            }
            Transition t = DispatchDecision.decide(a.result(), a.message().leased().attempts(),
                    settings.retryPolicy());
            requests.add(new TransitionRequest(a.message().leased(), t));
        }
        metrics.messages(Queue.OUTBOX, Result.FAILED, failed);
        return store.transition(requests)
                .retryWhen(Retry.backoff(5, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(2))
                        .filter(Relay::isTransient))
                .doOnNext(results -> record(requests, results))
                .onErrorResume(e -> {
                    log.error("relay {}: writing {} transitions failed; their leases will expire and the messages "
                            + "will be claimed again", settings.workerId(), requests.size(), e);
                    metrics.messages(Queue.OUTBOX, Result.PERSIST_REJECTED, requests.size());
                    return Mono.empty();
                })
                .then();
    }

    /** Lease-guarded transitions are safe to repeat: a lost commit is recognised as our own write. */
    private static boolean isTransient(Throwable e) {
        return e instanceof R2dbcException
                && !(e instanceof R2dbcBadGrammarException)
                && !(e instanceof R2dbcDataIntegrityViolationException);
    }

    private void record(List<TransitionRequest> requests, List<TransitionResult> results) {
        Map<String, Transition> byId = new LinkedHashMap<>();
        requests.forEach(r -> byId.putIfAbsent(r.leased().id().value(), r.transition()));
        long published = 0;
        long deadLettered = 0;
        long skipped = 0;
        for (TransitionResult result : results) {
            Transition requested = byId.get(result.entry().id().value());
            metrics.transition(Queue.OUTBOX, settings.workerId(), requested, result);
            switch (result.outcome()) {
                case TransitionOutcome.Applied applied -> {
                    switch (requested) {
                        case Transition.Deliver d -> published++;
                        case Transition.DeadLetter d -> deadLettered++;
                        case Transition.ScheduleRetry r -> {
                        }
                        case Transition.Release r -> {
                        }
                        case Transition.RenewLease r -> {
                        }
                    }
                }
                case TransitionOutcome.StaleLease stale -> skipped++;
                case TransitionOutcome.Terminal terminal -> skipped++;
                case TransitionOutcome.ConcurrencyLost lost -> skipped++;
                case TransitionOutcome.Missing missing -> skipped++;
            }
        }
        metrics.messages(Queue.OUTBOX, Result.PUBLISHED, published);
        metrics.messages(Queue.OUTBOX, Result.DEAD_LETTERED, deadLettered);
        metrics.messages(Queue.OUTBOX, Result.PERSIST_SKIPPED, skipped);
    }

    /** Recorded by the circuit breaker for broker-availability failures. */
    static final class KafkaUnavailableException extends RuntimeException {
        KafkaUnavailableException() {
            super("Kafka unavailable", null, false, false);
        }
    }
}
