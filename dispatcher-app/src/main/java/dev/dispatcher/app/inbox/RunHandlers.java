package dev.dispatcher.app.inbox;

import dev.dispatcher.app.kafka.DeadLetterPublisher;
import dev.dispatcher.app.kafka.DeadLetterRecords;
import dev.dispatcher.app.kafka.DeadLetterTopic;
import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * applied), and the rest of the run is not attempted, so the loop releases them without spending attempts and
 * nothing of the key overtakes the failed message, which holds back its key until it succeeds or is dead-lettered.
 * Messages without a key are handled as with {@link Ordering#NONE}.
 *
 * <p>Dead-letter topic: the messages of a batch that the loop dead-letters are first published to the consumer's
 * dead-letter topic ({@link #beforeDeadLetter}, {@link DeadLetterPublisher}), so their rows turn {@code
 * DEAD_LETTERED} after the topic has them (or after the topic refused them, counted).
 */
final class RunHandlers implements BatchStrategy<ClaimedInboxMessage> {

    private final InboxStore.Consumer rows;
    private final InboxHandler handler;
    private final InboxSettings settings;
    private final WorkLimiter limiter;
    private final @Nullable DeadLetterPublisher deadLetters;

    RunHandlers(InboxStore.Consumer rows, InboxHandler handler, InboxSettings settings,
            @Nullable DeadLetterPublisher deadLetters) {
        this.rows = Objects.requireNonNull(rows, "rows");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.limiter = new WorkLimiter(settings.concurrency());
        this.deadLetters = deadLetters;
    }

    @Override
    public Mono<List<Attempt<ClaimedInboxMessage>>> work(Batch<ClaimedInboxMessage> batch) {
        return switch (settings.ordering()) {
            case NONE -> Flux.fromIterable(batch.messages())
                    .flatMap(m -> limiter.run(Mono.defer(() -> attempt(m, batch))), Integer.MAX_VALUE)
                    .collectList();
            case PER_KEY, PER_KEY_ACROSS_TOPICS -> Flux.fromIterable(runs(batch.messages()))
                    .flatMap(run -> limiter.run(inOrder(run, batch)), Integer.MAX_VALUE)
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
        return runs(batch).stream().anyMatch(run -> run.size() >= keyRun && run.getFirst().orderingKey() != null);
    }

    /**
     * A batch as runs: each key's messages in {@code seq} order (keys by their bytes, in the order they first
     * appear), and each message without a key alone.
     */
    static List<List<ClaimedInboxMessage>> runs(List<ClaimedInboxMessage> batch) {
        Map<ByteBuffer, List<ClaimedInboxMessage>> byKey = new LinkedHashMap<>();
        List<List<ClaimedInboxMessage>> runs = new ArrayList<>();
        for (ClaimedInboxMessage m : batch) {
            byte[] key = m.orderingKey();
            if (key == null) {
                runs.add(List.of(m));
            } else {
                byKey.computeIfAbsent(ByteBuffer.wrap(key), k -> new ArrayList<>()).add(m);
            }
        }
        byKey.values().forEach(run -> {
            run.sort(Comparator.comparingLong(m -> m.leased().seq()));
            runs.add(run);
        });
        return runs;
    }

    /** One run, one message after another; the messages after the first one not handled are not attempted. */
    private Mono<List<Attempt<ClaimedInboxMessage>>> inOrder(List<ClaimedInboxMessage> run,
            Batch<ClaimedInboxMessage> batch) {
        return Mono.defer(() -> {
            AtomicBoolean blocked = new AtomicBoolean(); // this subscription's; the run is sequential
            return Flux.fromIterable(run)
                    .concatMap(m -> Mono.defer(() -> blocked.get()
                            ? Mono.just(notAttempted(m, "an earlier message of its key was not handled"))
                            : attempt(m, batch).doOnNext(a -> blocked.set(!handled(a)))))
                    .collectList();
        });
    }

    /** Whether {@code attempt} handled its message: the handler succeeded, and a completion it wrote was applied. */
    private static boolean handled(Attempt<ClaimedInboxMessage> attempt) {
        return switch (attempt) {
            case Attempt.Dispatched<ClaimedInboxMessage> d -> d.result() instanceof DispatchResult.Published;
            case Attempt.Written<ClaimedInboxMessage> w -> w.result().isApplied();
        };
    }

    private Mono<Attempt<ClaimedInboxMessage>> attempt(ClaimedInboxMessage m, Batch<ClaimedInboxMessage> batch) {
        if (batch.stopping()) {
            return Mono.just(notAttempted(m, "inbox shutting down"));
        }
        return handle(m, batch);
    }

    /**
     * Publishes the messages the loop dead-letters to the consumer's dead-letter topic, if it has one: each with its
     * value, key and headers plus the reason, attempts and source topic ({@link DeadLetterRecords}).
     */
    @Override
    public Mono<Void> beforeDeadLetter(List<DeadLetter<ClaimedInboxMessage>> deadLetters) {
        DeadLetterTopic topic = settings.deadLetterTopic();
        if (this.deadLetters == null || topic == null) {
            return Mono.empty();
        }
        List<DeadLetterPublisher.Letter> letters = new ArrayList<>(deadLetters.size());
        for (DeadLetter<ClaimedInboxMessage> dead : deadLetters) {
            ClaimedInboxMessage m = dead.message();
            letters.add(new DeadLetterPublisher.Letter(m.leased().id().value(), DeadLetterRecords.of(topic, m.topic(),
                    m.key(), m.keyBytes(), m.payload(), m.headers(), dead.reason(), m.leased().attempts())));
        }
        return this.deadLetters.publish(letters);
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
