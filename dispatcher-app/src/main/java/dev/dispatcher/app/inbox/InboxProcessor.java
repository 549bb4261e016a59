package dev.dispatcher.app.inbox;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.Result;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.app.store.WakeSignal;
import dev.dispatcher.domain.DispatchDecision;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.IsolationLevel;
import io.r2dbc.spi.R2dbcBadGrammarException;
import io.r2dbc.spi.R2dbcException;
import io.r2dbc.spi.TransactionDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Runs one consumer's handler over its stored inbox rows.
 *
 * <p>Pull-based like the relay: a batch is claimed (lease, fresh token, attempt counted) only when fewer than two
 * are unfinished; a full batch claims again at once, otherwise the processor waits for {@link #wake()} (intake
 * stored rows) or the poll interval. Messages of a batch run with bounded concurrency; the leases of unfinished
 * ones are renewed every third of the lease.
 *
 * <p>Per message, for a transactional handler: open a READ COMMITTED transaction, run the handler with its
 * connection, write {@code Deliver} ({@code COMPLETED}) on the same connection, and commit only when that
 * transition is {@code Applied}; any other outcome rolls the handler's writes back, so a worker that lost its
 * lease never commits its effect. If the handler (or the completion) fails, the transaction rolls back and the
 * failure goes through {@link DispatchDecision}: permanent failures dead-letter at once, transient ones are
 * scheduled for retry with the policy's backoff (as {@code visible_after}) until the attempt limit. A handler that
 * is not transactional runs without a connection and its completion is written in autocommit.
 *
 * <p>Metrics: {@code dispatcher.messages{queue=inbox}} succeeded (completion applied), failed (handler attempt
 * failed), dead_lettered, persist_skipped (a transition not applied), persist_rejected (the transition statement
 * failed; the lease then runs out and the row is claimed again); every transition is counted by outcome and
 * every non-applied one logged.
 */
public final class InboxProcessor {

    private static final Logger log = LoggerFactory.getLogger(InboxProcessor.class);
    private static final TransactionDefinition READ_COMMITTED = IsolationLevel.READ_COMMITTED;
    private static final int MAX_IN_FLIGHT_BATCHES = 2;
    private static final Object TICK = new Object();

    private final InboxStore store;
    private final InboxHandler handler;
    private final InboxSettings settings;
    private final DispatcherMetrics metrics;
    private final ConnectionFactory connections;

    private final WakeSignal wakeups = new WakeSignal();
    /** Owned by the claim loop (claims run one at a time). */
    private volatile long seenGeneration = -1;
    private volatile boolean lastBatchFull;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final Sinks.Empty<Void> finished = Sinks.empty();
    private volatile Disposable running;

    public InboxProcessor(InboxStore store, InboxHandler handler, InboxSettings settings, DispatcherMetrics metrics,
            ConnectionFactory connections) {
        this.store = Objects.requireNonNull(store, "store");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.connections = Objects.requireNonNull(connections, "connections");
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
                .flatMap(this::process, MAX_IN_FLIGHT_BATCHES, 1)
                .subscribeOn(Schedulers.parallel())
                .doFinally(signal -> finished.tryEmitEmpty())
                .subscribe(null, e -> log.error("inbox {} processor {} stopped on an unexpected error",
                        settings.consumer(), settings.workerId(), e));
        log.info("inbox {} processor {} started: handler={} batch-size={} concurrency={}", settings.consumer(),
                settings.workerId(), handler.name(), settings.batchSize(), settings.concurrency());
    }

    /** Signals new rows. Cheap, callable from any thread. */
    public void wake() {
        wakeups.wake();
    }

    /**
     * Stops claiming and lets in-flight messages finish; completes when they did or after the drain timeout (then
     * they are cancelled, their transactions roll back and their leases run out).
     */
    public Mono<Void> stop() {
        return Mono.defer(() -> {
            if (running == null) {
                return Mono.empty();
            }
            stopping.set(true);
            wake();
            return finished.asMono()
                    .timeout(settings.drainTimeout())
                    .onErrorResume(e -> {
                        log.warn("inbox {} processor {} did not drain within {}; cancelling", settings.consumer(),
                                settings.workerId(), settings.drainTimeout());
                        running.dispose();
                        return Mono.empty();
                    });
        });
    }

    public InboxSettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- claiming

    private Mono<List<LeasedInboxMessage>> nextBatch() {
        return Mono.defer(() -> {
                    if (stopping.get()) {
                        return Mono.<List<LeasedInboxMessage>>empty();
                    }
                    Mono<Void> ready = lastBatchFull ? Mono.empty() : waitForWakeOrPoll();
                    return ready.then(Mono.defer(this::claim));
                })
                .repeatWhenEmpty(repeats -> repeats.takeWhile(r -> !stopping.get()));
    }

    private Mono<Void> waitForWakeOrPoll() {
        return wakeups.awaitAfter(seenGeneration, settings.pollInterval());
    }

    private Mono<List<LeasedInboxMessage>> claim() {
        seenGeneration = wakeups.generation();
        return store.claimBatch(settings.consumer(), settings.workerId(), settings.batchSize(),
                        settings.leaseDuration())
                .doOnNext(batch -> {
                    lastBatchFull = batch.size() >= settings.batchSize();
                    metrics.leaseExpirations(Queue.INBOX,
                            batch.stream().filter(LeasedInboxMessage::leaseExpired).count());
                })
                .filter(batch -> !batch.isEmpty())
                .onErrorResume(e -> {
                    log.warn("inbox {} processor {}: claim failed ({}); retrying after {}", settings.consumer(),
                            settings.workerId(), e.toString(), settings.pollInterval());
                    lastBatchFull = false;
                    return Mono.delay(settings.pollInterval()).then(Mono.empty());
                });
    }

    // ---------------------------------------------------------------- one batch

    private Mono<Void> process(List<LeasedInboxMessage> batch) {
        Set<LeasedInboxMessage> unfinished = ConcurrentHashMap.newKeySet();
        unfinished.addAll(batch);
        Mono<Void> handled = Flux.fromIterable(batch)
                .flatMap(m -> handle(m).doFinally(s -> unfinished.remove(m)), settings.concurrency())
                .then()
                .cache();
        Mono<Void> renewals = Flux.interval(settings.renewEvery()).onBackpressureDrop()
                .takeUntilOther(handled)
                .concatMap(tick -> renew(List.copyOf(unfinished)))
                .then();
        return Mono.when(handled, renewals)
                .onErrorResume(e -> {
                    log.error("inbox {} processor {}: batch of {} failed unexpectedly", settings.consumer(),
                            settings.workerId(), batch.size(), e);
                    return Mono.empty();
                });
    }

    private Mono<Void> renew(List<LeasedInboxMessage> messages) {
        if (messages.isEmpty()) {
            return Mono.empty();
        }
        List<TransitionRequest> requests = messages.stream()
                .map(m -> new TransitionRequest(m.leased(), new Transition.RenewLease(settings.leaseDuration())))
                .toList();
        return store.transition(settings.consumer(), requests)
                .doOnNext(results -> results.forEach(r ->
                        metrics.transition(Queue.INBOX, settings.workerId(), requests.getFirst().transition(), r)))
                .onErrorResume(e -> {
                    log.warn("inbox {} processor {}: lease renewal failed: {}", settings.consumer(),
                            settings.workerId(), e.toString());
                    return Mono.empty();
                })
                .then();
    }

    // ---------------------------------------------------------------- one message

    /** What became of one handler run: its completion's result, or the failure to decide on. */
    private sealed interface Attempt {
        record Completed(TransitionResult result) implements Attempt {
        }

        record Failed(DispatchResult.Failed failure) implements Attempt {
        }
    }

    private Mono<Void> handle(LeasedInboxMessage m) {
        Mono<Attempt> attempt = handler.transactional() ? inTransaction(m) : withoutTransaction(m);
        return attempt
                .flatMap(a -> switch (a) {
                    case Attempt.Completed completed -> {
                        record(m, new Transition.Deliver(), completed.result());
                        yield Mono.<Void>empty();
                    }
                    case Attempt.Failed failed -> {
                        metrics.messages(Queue.INBOX, Result.FAILED, 1);
                        Transition next = DispatchDecision.decide(failed.failure(), m.leased().attempts(),
                                settings.retryPolicy());
                        yield write(m, next);
                    }
                })
                .onErrorResume(e -> {
                    log.error("inbox {} processor {}: message {} failed unexpectedly", settings.consumer(),
                            settings.workerId(), m.leased().id(), e);
                    return Mono.empty();
                });
    }

    private Mono<Attempt> inTransaction(LeasedInboxMessage m) {
        TransitionRequest deliver = new TransitionRequest(m.leased(), new Transition.Deliver());
        return Mono.usingWhen(connections.create(),
                c -> Mono.from(c.beginTransaction(READ_COMMITTED))
                        .then(runHandler(m, c))
                        .then(Mono.defer(() -> store.transition(c, settings.consumer(), deliver)))
                        .flatMap(result -> (result.isApplied()
                                ? Mono.from(c.commitTransaction())
                                : Mono.from(c.rollbackTransaction()))
                                .thenReturn((Attempt) new Attempt.Completed(result)))
                        .onErrorResume(e -> rollback(c).thenReturn(failed(e))),
                Connection::close);
    }

    private Mono<Attempt> withoutTransaction(LeasedInboxMessage m) {
        return runHandler(m, null)
                .then(Mono.defer(() -> transition(m, new Transition.Deliver())))
                .map(result -> (Attempt) new Attempt.Completed(result))
                // a rejected completion is already logged and counted; its lease runs out and it is claimed again
                .onErrorResume(e -> e instanceof HandlerFailure ? Mono.just(failed(e)) : Mono.empty());
    }

    private Mono<Void> runHandler(LeasedInboxMessage m, Connection connection) {
        return Mono.defer(() -> handler.handle(m.message(), new HandlerContext(connection, settings.workerId())))
                .timeout(settings.handlerTimeout())
                .onErrorMap(HandlerFailure::new);
    }

    private static Mono<Void> rollback(Connection c) {
        return Mono.from(c.rollbackTransaction()).onErrorResume(e -> Mono.empty());
    }

    /** Classifies a failure once: what the handler said, else transient. */
    private static Attempt failed(Throwable e) {
        Throwable cause = e instanceof HandlerFailure ? e.getCause() : e;
        FailureKind kind = cause instanceof InboxHandlerException h ? h.kind() : FailureKind.TRANSIENT;
        String prefix = e instanceof HandlerFailure ? "" : "completion failed: ";
        return new Attempt.Failed(new DispatchResult.Failed(kind, prefix + describe(cause)));
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": "
                + e.getMessage();
    }

    /** Marks an error as the handler's, so it is told apart from the completion's. */
    private static final class HandlerFailure extends RuntimeException {
        HandlerFailure(Throwable cause) {
            super(cause.toString(), cause, false, false);
        }
    }

    // ---------------------------------------------------------------- transitions in autocommit

    private Mono<Void> write(LeasedInboxMessage m, Transition transition) {
        return transition(m, transition)
                .doOnNext(result -> record(m, transition, result))
                .onErrorResume(e -> Mono.empty())
                .then();
    }

    private Mono<TransitionResult> transition(LeasedInboxMessage m, Transition transition) {
        return store.transition(settings.consumer(), List.of(new TransitionRequest(m.leased(), transition)))
                .map(List::getFirst)
                .retryWhen(Retry.backoff(5, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(2))
                        .filter(InboxProcessor::isTransient))
                .doOnError(e -> {
                    log.error("inbox {} processor {}: writing {} of message {} failed; its lease will expire and it"
                                    + " will be claimed again", settings.consumer(), settings.workerId(),
                            transition.tag(), m.leased().id(), e);
                    metrics.messages(Queue.INBOX, Result.PERSIST_REJECTED, 1);
                });
    }

    /** Lease-guarded transitions are safe to repeat: a lost commit is recognised as our own write. */
    private static boolean isTransient(Throwable e) {
        return e instanceof R2dbcException && !(e instanceof R2dbcBadGrammarException);
    }

    private void record(LeasedInboxMessage m, Transition requested, TransitionResult result) {
        metrics.transition(Queue.INBOX, settings.workerId(), requested, result);
        switch (result.outcome()) {
            case TransitionOutcome.Applied applied -> {
                switch (requested) {
                    case Transition.Deliver d -> metrics.messages(Queue.INBOX, Result.SUCCEEDED, 1);
                    case Transition.DeadLetter d -> metrics.messages(Queue.INBOX, Result.DEAD_LETTERED, 1);
                    case Transition.ScheduleRetry r -> {
                    }
                    case Transition.Release r -> {
                    }
                    case Transition.RenewLease r -> {
                    }
                }
            }
            case TransitionOutcome.StaleLease stale -> metrics.messages(Queue.INBOX, Result.PERSIST_SKIPPED, 1);
            case TransitionOutcome.Terminal terminal -> metrics.messages(Queue.INBOX, Result.PERSIST_SKIPPED, 1);
            case TransitionOutcome.ConcurrencyLost lost -> metrics.messages(Queue.INBOX, Result.PERSIST_SKIPPED, 1);
            case TransitionOutcome.Missing missing -> metrics.messages(Queue.INBOX, Result.PERSIST_SKIPPED, 1);
        }
    }
}
