package dev.dispatcher.app.ingest;

import dev.dispatcher.app.ingest.IngestProblem.Overloaded.Reason;
import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.IngestMessage;
import dev.dispatcher.app.store.IngestStore;
import dev.dispatcher.app.store.InsertOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Writes ingest requests through a fixed set of lanes, each with at most one statement in flight: requests that
 * arrive while their lane is writing wait, and its next statement writes all of them together (group commit), up
 * to {@value #MAX_MESSAGES_PER_WRITE} messages and {@value #MAX_BYTES_PER_WRITE} payload bytes. A key's
 * single-message requests always go to the same lane, so they never wait for each other's key locks; requests with
 * several keys share one lane of their own.
 *
 * <p>A request waits at most {@code timeout} for its lane, timed on its own (a lane whose statement never returns
 * still answers every waiting request): one still waiting then is refused ({@link Reason#WAITED_TOO_LONG}) without
 * being written, and one whose client went away before its turn is dropped unwritten; either lets go of its
 * messages at once. Once a statement is sent, its outcome is the server's: a statement the server refuses wrote
 * nothing. A request whose statement has not finished {@code timeout} after it was sent is refused with
 * {@link Reason#WRITE_TIMED_OUT} (it may have been applied), while the statement goes on. A statement whose
 * connection was lost is repeated (at most twice): ids are fixed before the first attempt, so a repeat finds rows
 * the lost attempt committed instead of writing them again. A client that disconnects never cancels a statement:
 * lanes, not requests, own the database calls. The request's {@link IngestBudget.Reservation} is held from
 * queueing until the writer has finished with its messages.
 *
 * <p>Thread-safe: {@link #write} may be called from any thread; each lane's queue is drained by one thread at a
 * time (a work-in-progress counter), and statements complete on the driver's threads.
 */
final class IngestWriter {

    /** Most messages one statement writes. */
    static final int MAX_MESSAGES_PER_WRITE = 1000;
    /** Most payload bytes one statement writes (a single larger request is written alone). */
    static final long MAX_BYTES_PER_WRITE = 8L * 1024 * 1024;
    /** Most messages waiting in one lane; beyond it requests are refused at once ({@link Reason#QUEUE_FULL}). */
    static final int MAX_QUEUED_MESSAGES = 20_000;

    private final IngestStore store;
    private final Duration timeout;
    private final LongSupplier nanoTime;
    /** Times the waits of single requests. */
    private final Scheduler timer;
    /** Lanes for single-message requests, chosen by key; the last lane takes requests with several keys. */
    private final Lane[] keyLanes;
    private final Lane multiKeyLane;
    private final AtomicInteger unkeyed = new AtomicInteger();

    IngestWriter(IngestStore store, int lanes, Duration timeout) {
        this(store, lanes, timeout, System::nanoTime, Schedulers.parallel());
    }

    IngestWriter(IngestStore store, int lanes, Duration timeout, LongSupplier nanoTime, Scheduler timer) {
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1, but was " + lanes);
        }
        this.store = store;
        this.timeout = timeout;
        this.nanoTime = nanoTime;
        this.timer = timer;
        this.keyLanes = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            keyLanes[i] = new Lane();
        }
        this.multiKeyLane = new Lane();
    }

    /** One result per message, in request order, once the statement that wrote them committed. */
    Mono<List<InsertOutcome>> write(List<IngestMessage> messages) {
        return write(messages, null);
    }

    /**
     * {@link #write(List)}, holding {@code reservation} (may be null) until this writer has finished with the
     * messages: dropped from the queue, or written by a statement that has finished.
     */
    Mono<List<InsertOutcome>> write(List<IngestMessage> messages, IngestBudget.Reservation reservation) {
        return Mono.defer(() -> {
            Pending pending = new Pending(messages, nanoTime.getAsLong() + timeout.toNanos(), reservation);
            laneFor(messages).submit(pending);
            return pending.result.asMono()
                    .timeout(timeout, Mono.defer(pending::outwaited), timer)
                    .doOnCancel(pending::abandon);
        });
    }

    private IngestProblem waitedTooLong() {
        return new IngestProblem.Overloaded(Reason.WAITED_TOO_LONG, "the request waited " + timeout.toMillis()
                + " ms for its turn to be written (dispatcher.ingest.timeout); nothing was written, retry later");
    }

    private Lane laneFor(List<IngestMessage> messages) {
        String key = messages.get(0).key();
        for (int i = 1; i < messages.size(); i++) {
            if (!Objects.equals(key, messages.get(i).key())) {
                return multiKeyLane;
            }
        }
        int slot = key != null ? key.hashCode() : unkeyed.getAndIncrement();
        return keyLanes[Math.floorMod(slot, keyLanes.length)];
    }

    /**
     * A request waiting for its lane, then in a statement. Its state moves once from {@code WAITING} to either
     * {@code TAKEN} (by its lane, for a statement) or {@code DROPPED} (waited too long, or its client went away);
     * whichever wins answers for it.
     */
    private final class Pending {

        static final int WAITING = 0;
        static final int TAKEN = 1;
        static final int DROPPED = 2;

        /** The messages, until dropped: a dropped request lets go of them while its lane may still hold it. */
        volatile List<IngestMessage> messages;
        final int count;
        final long bytes;
        final long deadlineNanos;
        final IngestBudget.Reservation reservation;
        final Sinks.One<List<InsertOutcome>> result = Sinks.one();
        private final AtomicInteger state = new AtomicInteger(WAITING);

        Pending(List<IngestMessage> messages, long deadlineNanos, IngestBudget.Reservation reservation) {
            this.messages = messages;
            this.count = messages.size();
            long b = 0;
            for (IngestMessage m : messages) {
                b += m.payload().length;
            }
            this.bytes = b;
            this.deadlineNanos = deadlineNanos;
            this.reservation = reservation;
            if (reservation != null) {
                reservation.retain();
            }
        }

        /** Its lane takes it for a statement; false when it was dropped first. */
        boolean take() {
            return state.compareAndSet(WAITING, TAKEN);
        }

        /** Drops it if it is still waiting, answering {@code answer} (null: its client is gone); false otherwise. */
        boolean drop(IngestProblem answer) {
            if (!state.compareAndSet(WAITING, DROPPED)) {
                return false;
            }
            messages = null;
            if (answer != null) {
                result.tryEmitError(answer);
            }
            finished();
            return true;
        }

        /** Its client went away: dropped unwritten if still waiting; a statement already sent goes on. */
        void abandon() {
            drop(null);
        }

        /** The answer once {@code timeout} has passed since it was queued. */
        Mono<List<InsertOutcome>> outwaited() {
            if (drop(null)) {
                return Mono.error(waitedTooLong());
            }
            // taken: its statement runs; give it as long again before saying that the outcome is unknown
            return result.asMono().timeout(timeout, Mono.error(() -> new IngestProblem.Overloaded(
                    Reason.WRITE_TIMED_OUT, "the statement writing this request did not finish within "
                            + timeout.toMillis() + " ms of being sent (dispatcher.ingest.timeout); it may have been"
                            + " applied, so repeat the request with the same id")), timer);
        }

        /** This writer has finished with the messages. */
        void finished() {
            if (reservation != null) {
                reservation.release();
            }
        }
    }

    /** One queue and at most one statement in flight. */
    private final class Lane {

        private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();
        private final AtomicInteger queuedMessages = new AtomicInteger();
        private final AtomicInteger wip = new AtomicInteger();
        /** A statement is in flight; read and set in {@link #drain}, cleared by {@link #written}. */
        private volatile boolean writing;

        void submit(Pending pending) {
            int n = pending.count;
            if (queuedMessages.addAndGet(n) > MAX_QUEUED_MESSAGES) {
                queuedMessages.addAndGet(-n);
                pending.drop(new IngestProblem.Overloaded(Reason.QUEUE_FULL, "ingest is writing "
                        + MAX_QUEUED_MESSAGES + " or more waiting messages on this lane; nothing was written, "
                        + "retry later"));
                return;
            }
            queue.offer(pending);
            drain();
        }

        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                if (!writing) {
                    List<Pending> group = takeGroup();
                    if (!group.isEmpty()) {
                        writing = true;
                        write(group);
                    }
                }
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }

        /** Waiting requests up to a statement's size, at least one; expired and abandoned ones are answered. */
        private List<Pending> takeGroup() {
            List<Pending> group = new ArrayList<>();
            int messages = 0;
            long bytes = 0;
            long now = nanoTime.getAsLong();
            for (Pending next = queue.peek(); next != null; next = queue.peek()) {
                int n = next.count;
                long b = next.bytes;
                if (!group.isEmpty() && (messages + n > MAX_MESSAGES_PER_WRITE || bytes + b > MAX_BYTES_PER_WRITE)) {
                    break;
                }
                queue.poll();
                queuedMessages.addAndGet(-n);
                if (now - next.deadlineNanos > 0) {
                    next.drop(waitedTooLong());
                    continue;
                }
                if (!next.take()) {
                    continue; // dropped: answered already
                }
                group.add(next);
                messages += n;
                bytes += b;
            }
            return group;
        }

        private void write(List<Pending> group) {
            List<IngestMessage> all = new ArrayList<>();
            for (Pending p : group) {
                all.addAll(p.messages);
            }
            // the lane's own subscription: it ends with the statement, whatever the requests' clients do
            store.write(all)
                    // a lost connection may have committed the statement: a repeat finds those rows by id
                    .retryWhen(Retry.backoff(2, Duration.ofMillis(50)).filter(IngestWriter::connectionLost))
                    .doFinally(signal -> {
                        group.forEach(Pending::finished);
                        written();
                    })
                    .subscribe(results -> {
                        int offset = 0;
                        for (Pending p : group) {
                            int n = p.count;
                            p.result.tryEmitValue(results.subList(offset, offset + n));
                            offset += n;
                        }
                    }, error -> {
                        Throwable cause = answer(Exceptions.isRetryExhausted(error) ? error.getCause() : error);
                        group.forEach(p -> p.result.tryEmitError(cause));
                    });
        }

        private void written() {
            writing = false;
            drain();
        }
    }

    /** What the requests of a failed statement are answered: a removed row is a problem, other errors as they are. */
    private static Throwable answer(Throwable error) {
        return error instanceof IngestStore.RowRemovedException removed
                ? new IngestProblem.RowRemoved(removed.id(), removed.getMessage()) : error;
    }

    /** A lost connection, a deadlock or an exhausted pool: a repeat may succeed. A refused statement is final. */
    private static boolean connectionLost(Throwable error) {
        return switch (DatabaseFailures.classify(error)) {
            case TRANSIENT -> true;
            case TIMEOUT, PERMANENT -> false;
        };
    }
}
