package dev.dispatcher.app.inbox;

import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.KeyRuns;
import dev.dispatcher.app.queue.WorkLimiter;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Transition;
import io.r2dbc.spi.Connection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The inbox's strategy for the claim loop: run the consumer's handler for every message of a batch, at most
 * {@code concurrency} at once across all in-flight batches.
 *
 * <ul>
 *   <li>An in-process ({@linkplain InboxHandler#transactional() transactional}) handler runs in the message's own
 *       READ COMMITTED transaction, and the message's {@code Deliver} is written on the same connection: both commit
 *       only if the delivery is {@code Applied} ({@link InboxStore.Consumer#deliverWithin}). The loop then only
 *       counts it.</li>
 *   <li>A handler with only a remote effect (the webhook) runs without a connection; its completions are written
 *       by the loop with the rest of the batch, in one statement: no transaction per message.</li>
 * </ul>
 * A failed handler goes through the domain's decision like a failed send: {@link InboxHandlerException} says how
 * it is classified; a database error of the handler's own statements is classified by {@link DatabaseFailures}
 * (an integrity violation is permanent); anything else, a time-out included, is transient.
 *
 * <p>Per-key order ({@link Ordering#PER_KEY}): the claim gave each key's rows to this batch as one run from the
 * key's head. A run is handled one message after another in {@code seq} order, in one of the {@code concurrency}
 * places (keys run concurrently); it stops at its first message that is not handled (failed, or its completion not
 * applied), and the rest of the run is not attempted ({@link KeyRuns#inOrder}), so the loop releases them without
 * spending attempts and nothing of the key overtakes the failed message, which holds back its key until it succeeds
 * or is dead-lettered.
 * Messages without a key are handled as with {@link Ordering#NONE}.
 *
 * <p>Dead-letter topic: the messages of a batch that the loop dead-letters go to the consumer's dead-letter port
 * ({@link InboxDeadLetters}), so their rows turn {@code DEAD_LETTERED} after the topic has them (or after the topic
 * refused them, counted).
 */
final class RunHandlers implements BatchStrategy<ClaimedInboxMessage> {

    private final InboxStore.Consumer rows;
    private final InboxHandler handler;
    private final InboxSettings settings;
    private final WorkLimiter limiter;

    RunHandlers(InboxStore.Consumer rows, InboxHandler handler, InboxSettings settings) {
        this.rows = Objects.requireNonNull(rows, "rows");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.limiter = new WorkLimiter(settings.concurrency());
    }

    @Override
    public Mono<List<Attempt<ClaimedInboxMessage>>> work(Batch<ClaimedInboxMessage> batch) {
        return switch (settings.ordering()) {
            case NONE -> Flux.fromIterable(batch.messages())
                    .flatMap(m -> limiter.run(Mono.defer(() -> attempt(m, batch))), Integer.MAX_VALUE)
                    .collectList();
            case PER_KEY, PER_KEY_ACROSS_TOPICS -> Flux.fromIterable(runs(batch.messages()))
                    .flatMap(run -> limiter.run(KeyRuns.inOrder(run, m -> attempt(m, batch))), Integer.MAX_VALUE)
                    .flatMapIterable(attempts -> attempts)
                    .collectList();
        };
    }

    @Override
    public boolean holdsBackWork() {
        return settings.ordering().perKey();
    }

    /**
     * A per-key claim takes at most {@link InboxStore#keyRun} rows of a key: a run that long may have left later rows
     * of its key, claimable once this batch releases the key.
     */
    @Override
    public boolean mayHaveLeftRowsOfItsKeys(List<ClaimedInboxMessage> batch) {
        if (!settings.ordering().perKey()) {
            return false;
        }
        int keyRun = settings.keyRun();
        return KeyRuns.byKey(batch, RunHandlers::key).runs().stream().anyMatch(run -> run.size() >= keyRun);
    }

    /**
     * A batch as runs ({@link KeyRuns#byKey}): each message without a key alone, then each key's messages in {@code
     * seq} order (keys by their bytes, in the order they first appear).
     */
    static List<List<ClaimedInboxMessage>> runs(List<ClaimedInboxMessage> batch) {
        KeyRuns.Grouped<ClaimedInboxMessage> grouped = KeyRuns.byKey(batch, RunHandlers::key);
        List<List<ClaimedInboxMessage>> runs = new ArrayList<>(grouped.unkeyed().size() + grouped.runs().size());
        grouped.unkeyed().forEach(m -> runs.add(List.of(m)));
        runs.addAll(grouped.runs());
        return runs;
    }

    /** A message's key as {@link KeyRuns#byKey} compares it (by its bytes), or null. */
    private static @Nullable ByteBuffer key(ClaimedInboxMessage m) {
        byte[] key = m.orderingKey();
        return key == null ? null : ByteBuffer.wrap(key);
    }

    private Mono<Attempt<ClaimedInboxMessage>> attempt(ClaimedInboxMessage m, Batch<ClaimedInboxMessage> batch) {
        if (batch.stopping()) {
            return Mono.just(notAttempted(m, "inbox shutting down"));
        }
        return handle(m, batch);
    }

    private Mono<Attempt<ClaimedInboxMessage>> handle(ClaimedInboxMessage m, Batch<ClaimedInboxMessage> batch) {
        InboxMessage message = InboxMessage.of(m);
        if (!handler.transactional()) {
            return run(message, null)
                    .thenReturn(dispatched(m, DispatchResult.HANDLED))
                    .onErrorResume(e -> Mono.just(dispatched(m, failed(e))));
        }
        Transition deliver = new Transition.Deliver();
        return rows.deliverWithin(new TransitionRequest(m.leased(), deliver), connection -> run(message, connection))
                .map(result -> {
                    batch.written(m);
                    return (Attempt<ClaimedInboxMessage>) new Attempt.Written<>(m, deliver, result);
                })
                .onErrorResume(e -> Mono.just(dispatched(m, failed(e))));
    }

    private Mono<Void> run(InboxMessage message, Connection connection) {
        return Mono.defer(() -> handler.handle(message, new HandlerContext(connection, settings.loop().workerId())))
                .timeout(settings.handlerTimeout());
    }

    private static Attempt<ClaimedInboxMessage> dispatched(ClaimedInboxMessage m, DispatchResult result) {
        return new Attempt.Dispatched<>(m, result);
    }

    private static Attempt<ClaimedInboxMessage> notAttempted(ClaimedInboxMessage m, String reason) {
        return dispatched(m, new DispatchResult.NotAttempted(reason));
    }

    /** Classifies a failure once: what the handler said, what the database said, else transient. */
    static DispatchResult.Failed failed(Throwable e) {
        FailureKind kind = switch (e) {
            case InboxHandlerException h -> h.kind();
            case io.r2dbc.spi.R2dbcException db -> switch (DatabaseFailures.classify(db)) {
                case PERMANENT -> FailureKind.PERMANENT;
                case TRANSIENT, TIMEOUT -> FailureKind.TRANSIENT;
            };
            default -> FailureKind.TRANSIENT;
        };
        return new DispatchResult.Failed(kind, describe(e));
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    @Override
    public String toString() {
        return "RunHandlers[" + handler.name() + "]";
    }
}
