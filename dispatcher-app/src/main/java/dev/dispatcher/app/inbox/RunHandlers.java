package dev.dispatcher.app.inbox;

import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.WorkLimiter;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Transition;
import io.r2dbc.spi.Connection;
import java.util.List;
import java.util.Objects;
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
        return Flux.fromIterable(batch.messages())
                .flatMap(m -> limiter.run(Mono.defer(() -> batch.stopping()
                        ? Mono.just(notAttempted(m))
                        : handle(m, batch))), Integer.MAX_VALUE)
                .collectList();
    }

    private Mono<Attempt<ClaimedInboxMessage>> handle(ClaimedInboxMessage m, Batch<ClaimedInboxMessage> batch) {
        InboxMessage message = InboxMessage.of(m);
        if (!handler.transactional()) {
            return run(message, null)
                    .thenReturn(dispatched(m, DispatchResult.PUBLISHED))
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
        return Mono.defer(() -> handler.handle(message, new HandlerContext(connection, settings.workerId())))
                .timeout(settings.handlerTimeout());
    }

    private static Attempt<ClaimedInboxMessage> dispatched(ClaimedInboxMessage m, DispatchResult result) {
        return new Attempt.Dispatched<>(m, result);
    }

    private static Attempt<ClaimedInboxMessage> notAttempted(ClaimedInboxMessage m) {
        return dispatched(m, new DispatchResult.NotAttempted("inbox shutting down"));
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
