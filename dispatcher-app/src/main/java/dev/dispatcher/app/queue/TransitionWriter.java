package dev.dispatcher.app.queue;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.observe.DispatcherMetrics.Result;
import dev.dispatcher.app.observe.MessageLogContext;
import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * A claim loop's writes: a batch's decided transitions in one classified statement with its retry, renewals and
 * releases, and the counting of every outcome. Thread-safe (stateless besides its collaborators).
 */
final class TransitionWriter {

    private static final Logger log = LoggerFactory.getLogger(TransitionWriter.class);
    /** Attempts of a transition statement that failed with a retryable error, and their backoff. */
    static final int WRITE_RETRIES = 5;
    static final Duration WRITE_BACKOFF = Duration.ofMillis(100);
    static final Duration WRITE_MAX_BACKOFF = Duration.ofSeconds(2);

    private final LeasedQueue<?> queue;
    private final LoopSettings settings;
    private final DispatcherMetrics metrics;
    private final Scheduler scheduler;

    TransitionWriter(LeasedQueue<?> queue, LoopSettings settings, DispatcherMetrics metrics, Scheduler scheduler) {
        this.queue = queue;
        this.settings = settings;
        this.metrics = metrics;
        this.scheduler = scheduler;
    }

    /**
     * Writes the decided transitions of the dispatched attempts in one statement, and counts them and the strategy's
     * own writes. Sets {@code rowsBack} when a row becomes claimable again at once (not published, released).
     */
    <M extends Claimed> Mono<Void> write(List<DecidedTransition<M>> decided, AtomicBoolean rowsBack) {
        List<TransitionRequest> requests = new ArrayList<>(decided.size());
        List<M> messages = new ArrayList<>(decided.size());
        long failed = 0;
        for (DecidedTransition<M> each : decided) {
            switch (each.attempt()) {
                case Attempt.Dispatched<M> d -> {
                    if (d.result() instanceof DispatchResult.Failed) {
                        failed++;
                    }
                    // a deferred row is given back with a delay: nothing to claim again at once
                    if (!(d.result() instanceof DispatchResult.Published)
                            && !(d.result() instanceof DispatchResult.Deferred)) {
                        rowsBack.set(true);
                    }
                    requests.add(new TransitionRequest(d.message().leased(), each.transition()));
                    messages.add(d.message());
                }
                case Attempt.Written<M> w -> {
                    if (!w.result().isApplied()) {
                        rowsBack.set(true);
                    }
                    record(List.of(w.message()), List.of(new TransitionRequest(w.message().leased(),
                            w.transition())), List.of(w.result()));
                }
            }
        }
        metrics.messages(queue.queue(), Result.FAILED, failed);
        if (requests.isEmpty()) {
            return Mono.empty();
        }
        return Mono.defer(() -> queue.transition(requests))
                .retryWhen(Retry.backoff(WRITE_RETRIES, WRITE_BACKOFF).maxBackoff(WRITE_MAX_BACKOFF)
                        .scheduler(scheduler)
                        .filter(DatabaseFailures::isRetryable))
                .doOnNext(results -> record(messages, requests, results))
                .onErrorResume(e -> {
                    event(Level.ERROR).setCause(e).log("{} worker {}: writing {} transitions failed; their leases will"
                            + " expire and the messages will be claimed again", queue, settings.workerId(),
                            requests.size());
                    metrics.messages(queue.queue(), Result.PERSIST_REJECTED, requests.size());
                    return Mono.empty();
                })
                .then();
    }

    /** Renews the leases of {@code messages}; a failure is logged, the next renewal tries again. */
    Mono<Void> renew(List<? extends Claimed> messages) {
        if (messages.isEmpty()) {
            return Mono.empty();
        }
        Transition renew = new Transition.RenewLease(settings.leaseDuration());
        List<TransitionRequest> requests = messages.stream()
                .map(m -> new TransitionRequest(m.leased(), renew)).toList();
        return Mono.defer(() -> queue.transition(requests))
                .doOnNext(results -> {
                    // counted by outcome only: a renewal is no message's result
                    Map<String, Claimed> byId = new HashMap<>(messages.size() * 2);
                    messages.forEach(m -> byId.put(m.leased().id().value(), m));
                    results.forEach(r -> metrics.transition(queue.queue(), settings.workerId(), renew, r,
                            byId.get(r.entry().id().value())));
                })
                .onErrorResume(e -> {
                    event(Level.WARN).log("{} worker {}: lease renewal failed: {}", queue, settings.workerId(),
                            e.toString());
                    return Mono.empty();
                })
                .then();
    }

    /**
     * Gives {@code messages} back after an unexpected failure, so they are claimable at once instead of after the
     * lease; spends no attempt. Work already done is done again (at least once).
     */
    Mono<Void> release(List<? extends Claimed> messages) {
        if (messages.isEmpty()) {
            return Mono.empty();
        }
        List<TransitionRequest> requests = messages.stream()
                .map(m -> new TransitionRequest(m.leased(), new Transition.Release())).toList();
        return Mono.defer(() -> queue.transition(requests))
                .doOnNext(results -> record(messages, requests, results))
                .onErrorResume(e -> {
                    event(Level.WARN).log("{} worker {}: releasing a failed batch failed too ({}); its leases will"
                            + " expire", queue, settings.workerId(), e.toString());
                    return Mono.empty();
                })
                .then();
    }

    /** An event of this writer's own, carrying its source as a key-value pair ({@link MessageLogContext#SOURCE}). */
    private LoggingEventBuilder event(Level level) {
        return log.atLevel(level).addKeyValue(MessageLogContext.SOURCE, metrics.source());
    }

    /**
     * Counts each result by outcome, and messages by what an applied transition means for its queue; {@code
     * messages} are the claimed rows of {@code requests}, index for index (what the results' log events say of
     * them).
     */
    void record(List<? extends Claimed> messages, List<TransitionRequest> requests, List<TransitionResult> results) {
        Queue q = queue.queue();
        Map<String, Integer> byId = new HashMap<>(requests.size() * 2);
        for (int i = 0; i < requests.size(); i++) {
            byId.putIfAbsent(requests.get(i).leased().id().value(), i);
        }
        long succeeded = 0;
        long deadLettered = 0;
        long skipped = 0;
        for (TransitionResult result : results) {
            int index = byId.get(result.entry().id().value());
            Transition requested = requests.get(index).transition();
            metrics.transition(q, settings.workerId(), requested, result, messages.get(index));
            switch (result.outcome()) {
                case TransitionOutcome.Applied applied -> {
                    switch (requested) {
                        case Transition.Deliver d -> succeeded++;
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
        metrics.messages(q, Result.succeeded(q), succeeded);
        metrics.messages(q, Result.DEAD_LETTERED, deadLettered);
        metrics.messages(q, Result.PERSIST_SKIPPED, skipped);
    }
}
