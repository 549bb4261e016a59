package dev.dispatcher.app.queue;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.app.store.Claimed;
import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.RetryPolicy;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * What the claim loop's tests share: a loop in virtual time over a port that answers at once ({@link FakeQueue}) and
 * a strategy whose batches finish when the test says ({@link FakeStrategy}), started with the test's batch size,
 * batches and bytes in flight, and stopped and drained after each test.
 */
abstract class ClaimLoopFixture {

    static final Duration POLL = Duration.ofSeconds(1);
    static final Duration LINGER = Duration.ofMillis(5);
    static final int BATCH = 10;
    static final int IN_FLIGHT = 2;

    final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    final FakeQueue queue = new FakeQueue();
    final FakeStrategy strategy = new FakeStrategy();
    final AtomicBoolean paused = new AtomicBoolean();
    /** The loop's retry policy; a test may set it before starting the loop. */
    RetryPolicy policy = RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.NONE, 5,
            new SplittableRandom(1));
    /** Where the loop hands its dead letters; a test may set it before starting the loop. */
    DeadLetterPort<Row> deadLetters = DeadLetterPort.none();
    ClaimLoop<Row> loop;

    @AfterEach
    void stop() {
        if (loop != null) {
            queue.rowsPerClaim = () -> 0; // a fake with endless full batches that finish at once never lets time pass
            strategy.finishAll();
            loop.stop().subscribe();
            time.advanceTimeBy(Duration.ofMinutes(1));
        }
        time.dispose();
    }

    ClaimLoop<Row> start() {
        return start(BATCH);
    }

    ClaimLoop<Row> start(int batch) {
        return start(batch, IN_FLIGHT, LoopSettings.UNBOUNDED_BYTES);
    }

    ClaimLoop<Row> start(int batch, int inFlight, long maxInFlightBytes) {
        LoopSettings settings = new LoopSettings("gating", batch, inFlight, Duration.ofSeconds(30), POLL, LINGER,
                policy, Duration.ofSeconds(10), maxInFlightBytes);
        loop = new ClaimLoop<>("gating", queue, strategy, deadLetters, settings,
                new DispatcherMetrics(new SimpleMeterRegistry()), paused::get, time);
        loop.start();
        time.advanceTime();
        return loop;
    }

    record Row(LeasedMessage leased, long payloadBytes) implements Claimed {
        @Override
        public boolean leaseExpired() {
            return false;
        }
    }

    /** Answers claims with {@code rowsPerClaim} fresh rows and every transition with Applied. */
    static final class FakeQueue implements LeasedQueue<Row> {
        final AtomicInteger claims = new AtomicInteger();
        final List<TransitionRequest> written = new CopyOnWriteArrayList<>();
        /** The byte budget each claim was given. */
        final List<Long> budgets = new CopyOnWriteArrayList<>();
        volatile IntSupplier rowsPerClaim = () -> 0;
        volatile long bytesPerRow;
        private long seq;

        @Override
        public Queue queue() {
            return Queue.OUTBOX;
        }

        List<TransitionRequest> delivered() {
            return written.stream().filter(r -> r.transition() instanceof Transition.Deliver).toList();
        }

        @Override
        public Mono<List<Row>> claim(String owner, int limit, Duration lease) {
            return claim(owner, limit, Long.MAX_VALUE, lease);
        }

        /** As the outbox's claim: rows while their bytes fit {@code maxBytes}, and the first one in any case. */
        @Override
        public Mono<List<Row>> claim(String owner, int limit, long maxBytes, Duration lease) {
            claims.incrementAndGet();
            budgets.add(maxBytes);
            int n = Math.min(limit, rowsPerClaim.getAsInt());
            List<Row> rows = new ArrayList<>(n);
            long bytes = 0;
            for (int i = 0; i < n && (rows.isEmpty() || bytes + bytesPerRow <= maxBytes); i++) {
                bytes += bytesPerRow;
                rows.add(new Row(new LeasedMessage(MessageId.of(UUID.randomUUID()),
                        new Lease(owner, UUID.randomUUID(), Instant.EPOCH.plus(lease)), 0, 1,
                        MessageStatus.PENDING, null, ++seq), bytesPerRow));
            }
            return Mono.just(rows);
        }

        @Override
        public Mono<List<TransitionResult>> transition(List<TransitionRequest> requests) {
            written.addAll(requests);
            return Mono.just(requests.stream().map(r -> new TransitionResult(TransitionOutcome.APPLIED,
                    new MessageState(r.leased().id(), MessageStatus.DELIVERED, r.leased().lease().token(), null, 1,
                            1))).toList());
        }

        @Override
        public Mono<Backlog> backlog() {
            return Mono.just(Backlog.EMPTY);
        }

        @Override
        public Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit) {
            return Mono.just(0L);
        }
    }

    /** Gives every row {@code result} (published unless told otherwise) when told to; holds batches open until then. */
    static final class FakeStrategy implements BatchStrategy<Row> {
        final AtomicBoolean available = new AtomicBoolean(true);
        final AtomicInteger probes = new AtomicInteger();
        final List<Sinks.Empty<Void>> open = new CopyOnWriteArrayList<>();
        volatile boolean finishImmediately;
        volatile boolean holdsBack;
        volatile boolean leftRows;
        volatile DispatchResult result = DispatchResult.PUBLISHED;
        /** Batches worked: the loop calls {@link #work} once per batch. */
        final AtomicInteger works = new AtomicInteger();

        @Override
        public Mono<List<Attempt<Row>>> work(Batch<Row> batch) {
            works.incrementAndGet();
            DispatchResult each = result;
            List<Attempt<Row>> attempts = batch.messages().stream()
                    .<Attempt<Row>>map(m -> new Attempt.Dispatched<>(m, each)).toList();
            if (finishImmediately) {
                return Mono.just(attempts);
            }
            Sinks.Empty<Void> done = Sinks.empty();
            open.add(done);
            return done.asMono().thenReturn(attempts);
        }

        @Override
        public boolean available() {
            return available.get();
        }

        @Override
        public boolean holdsBackWork() {
            return holdsBack;
        }

        @Override
        public boolean mayHaveLeftRowsOfItsKeys(List<Row> batch) {
            return leftRows;
        }

        @Override
        public Mono<Void> probe() {
            return Mono.fromRunnable(probes::incrementAndGet);
        }

        void finishOldest() {
            open.remove(0).tryEmitEmpty();
        }

        void finishAll() {
            finishImmediately = true;
            while (!open.isEmpty()) {
                finishOldest();
            }
        }
    }
}
