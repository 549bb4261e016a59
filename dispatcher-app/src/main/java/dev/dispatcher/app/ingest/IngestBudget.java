package dev.dispatcher.app.ingest;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Bounds what ingest holds in memory: at most {@code maxRequests} ingest requests at once ({@code
 * dispatcher.ingest.max-concurrent-requests}), and at most {@code maxBytes} of their bodies ({@code
 * dispatcher.ingest.max-queued-bytes}), counted as a body's bytes arrive until the last holder of its messages lets
 * go. A request past the request bound, or one whose declared length would not fit the bytes held now, is refused
 * before its body is read ({@link IngestProblem.Overloaded}, {@link IngestProblem.Overloaded.Reason#BUSY} or {@link
 * IngestProblem.Overloaded.Reason#MEMORY_FULL}); one admitted whose bytes, as they arrive, would take the held bytes
 * past the bound is refused then ({@code MEMORY_FULL}), its bytes released. So a flood of large requests costs no
 * memory beyond the bound whatever the database does, and a slow body holds only what it has sent, not what it
 * declared: eight bodies declaring 8 MiB and trickling a byte at a time leave the budget to everyone else (and end
 * at {@code dispatcher.ingest.body-timeout}).
 *
 * <p>A body's bytes are {@linkplain Reservation#grow(long) added to its reservation} as they are read. Its messages
 * are smaller than its body (JSON is compacted, base64 decoded), so the reservation also covers them while they wait
 * for their lane and while a statement writes them. The reservation is counted ({@link Reservation}): the request
 * holds it until it is answered, and the ingest writer holds it from the time it queues the messages until its
 * statement has finished with them, which may be after the answer (a statement still running when its request timed
 * out); the bytes return when both let go.
 *
 * <p>Thread-safe: two atomic counters; a refused request changes neither.
 */
public final class IngestBudget {

    private final long maxBytes;
    private final int maxRequests;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger requests = new AtomicInteger();

    IngestBudget(long maxBytes, int maxRequests) {
        this.maxBytes = maxBytes;
        this.maxRequests = maxRequests;
    }

    /**
     * Runs {@code work} for a request once it fits both bounds, with its body's reservation (empty: the body's bytes
     * are added as they are read); fails with an {@link IngestProblem.Overloaded}, without subscribing to {@code
     * work}, when it does not. Lazy: nothing is counted until subscription, and everything is given back when the
     * returned Mono terminates or is cancelled.
     *
     * @param declared the body's declared length ({@code Content-Length}), or -1 when unknown
     * @param bodyLimit the most bytes the request's body may take (past it, {@link IngestProblem.TooLarge})
     */
    <T> Mono<T> admit(long declared, long bodyLimit, Function<Reservation, Mono<T>> work) {
        return Mono.defer(() -> {
            long size = declared >= 0 ? Math.min(declared, bodyLimit) : 0;
            if (requests.incrementAndGet() > maxRequests) {
                requests.decrementAndGet();
                return Mono.error(new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.BUSY, "ingest is"
                        + " answering " + maxRequests + " requests at once, its bound"
                        + " dispatcher.ingest.max-concurrent-requests; nothing was written, retry later"));
            }
            long held = bytes.get();
            if (held + size > maxBytes) {
                requests.decrementAndGet();
                return Mono.error(memoryFull(held, size));
            }
            Reservation reservation = new Reservation();
            return Mono.defer(() -> work.apply(reservation)).doFinally(signal -> {
                requests.decrementAndGet();
                reservation.release();
            });
        });
    }

    private IngestProblem.Overloaded memoryFull(long held, long size) {
        return new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.MEMORY_FULL, held, "ingest holds "
                + held + " bytes of requests in memory and this one may take " + size + " more, past its bound"
                + " dispatcher.ingest.max-queued-bytes (" + maxBytes + " bytes); nothing was written, retry later");
    }

    /** Bytes held now: of bodies read so far, and of messages the writer still holds. */
    public long reservedBytes() {
        return bytes.get();
    }

    /** Requests admitted and not yet answered. */
    public int requests() {
        return requests.get();
    }

    /**
     * A request body's bytes, counted by holder: the request, and the ingest writer while it {@linkplain #retain()
     * retains} them. The bytes return to the budget when the last holder {@linkplain #release() releases}.
     */
    final class Reservation {

        private final AtomicLong size = new AtomicLong();
        private final AtomicInteger holders = new AtomicInteger(1);

        private Reservation() {
        }

        /**
         * Adds {@code more} bytes of the body just read.
         *
         * @throws IngestProblem.Overloaded ({@code MEMORY_FULL}) when they would take the budget past its bound;
         *     nothing is added then
         */
        void grow(long more) {
            long held = bytes.addAndGet(more);
            if (held > maxBytes) {
                bytes.addAndGet(-more);
                throw memoryFull(held - more, more);
            }
            size.addAndGet(more);
        }

        /** One more holder; call {@link #release()} when it lets go. */
        void retain() {
            holders.incrementAndGet();
        }

        /** One holder lets go; the last one returns the bytes. */
        void release() {
            if (holders.decrementAndGet() == 0) {
                bytes.addAndGet(-size.getAndSet(0));
            }
        }
    }
}
