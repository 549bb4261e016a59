package dev.dispatcher.app.ingest;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Bounds what ingest holds in memory, checked before a request's body is read: at most {@code maxRequests} ingest
 * requests at once ({@code dispatcher.ingest.max-concurrent-requests}), and at most {@code maxBytes} of their bodies
 * ({@code dispatcher.ingest.max-queued-bytes}), counted from the moment a body may start arriving until the last
 * holder of its messages lets go. A request past either bound is refused at once ({@link IngestProblem.Overloaded},
 * {@link IngestProblem.Overloaded.Reason#BUSY} or {@link IngestProblem.Overloaded.Reason#MEMORY_FULL}), its body never read, so a flood of large requests costs no memory beyond the bound whatever
 * the database does.
 *
 * <p>A request reserves its declared {@code Content-Length}, or its body limit when it declares none (chunked). Its
 * messages are smaller than its body (JSON is compacted, base64 decoded), so the reservation also covers them while
 * they wait for their lane and while a statement writes them. The reservation is counted ({@link Reservation}): the
 * request holds it until it is answered, and the ingest writer holds it from the time it queues the messages until
 * its statement has finished with them, which may be after the answer (a statement still running when its request
 * timed out); the bytes return when both let go.
 *
 * <p>Thread-safe: two atomic counters; a refused request changes neither.
 */
final class IngestBudget {

    private final long maxBytes;
    private final int maxRequests;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger requests = new AtomicInteger();

    IngestBudget(long maxBytes, int maxRequests) {
        this.maxBytes = maxBytes;
        this.maxRequests = maxRequests;
    }

    /**
     * Runs {@code work} for a request once it fits both bounds, with its body's reservation; fails with an
     * {@link IngestProblem.Overloaded}, without subscribing to {@code work}, when it does not. Lazy: nothing is reserved until
     * subscription, and everything is given back when the returned Mono terminates or is cancelled.
     *
     * @param declared the body's declared length ({@code Content-Length}), or -1 when unknown
     * @param bodyLimit the most bytes the request's body may take (past it, {@link IngestProblem.TooLarge})
     */
    <T> Mono<T> admit(long declared, long bodyLimit, Function<Reservation, Mono<T>> work) {
        return Mono.defer(() -> {
            long size = declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
            if (requests.incrementAndGet() > maxRequests) {
                requests.decrementAndGet();
                return Mono.error(new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.BUSY, "ingest is"
                        + " answering " + maxRequests + " requests at once, its bound"
                        + " dispatcher.ingest.max-concurrent-requests; nothing was written, retry later"));
            }
            if (bytes.addAndGet(size) > maxBytes) {
                long held = bytes.addAndGet(-size);
                requests.decrementAndGet();
                return Mono.error(new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.MEMORY_FULL, held,
                        "ingest holds " + held + " bytes of requests in memory and this one may take " + size
                                + " more, past its bound dispatcher.ingest.max-queued-bytes (" + maxBytes
                                + " bytes); nothing was written, retry later"));
            }
            Reservation reservation = new Reservation(size);
            return Mono.defer(() -> work.apply(reservation)).doFinally(signal -> {
                requests.decrementAndGet();
                reservation.release();
            });
        });
    }

    /** Bytes reserved now. */
    long reservedBytes() {
        return bytes.get();
    }

    /** Requests admitted and not yet answered. */
    int requests() {
        return requests.get();
    }

    /**
     * A request body's bytes, counted by holder: the request, and the ingest writer while it {@linkplain #retain()
     * retains} them. The bytes return to the budget when the last holder {@linkplain #release() releases}.
     */
    final class Reservation {

        private final long size;
        private final AtomicInteger holders = new AtomicInteger(1);

        private Reservation(long size) {
            this.size = size;
        }

        /** One more holder; call {@link #release()} when it lets go. */
        void retain() {
            holders.incrementAndGet();
        }

        /** One holder lets go; the last one returns the bytes. */
        void release() {
            if (holders.decrementAndGet() == 0) {
                bytes.addAndGet(-size);
            }
        }
    }
}
