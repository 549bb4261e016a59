package dev.dispatcher.app.ingest;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Bounds what ingest holds in memory: at most {@code maxRequests} ingest requests at once ({@code
 * dispatcher.ingest.max-concurrent-requests}), and at most {@code maxBytes} of their bodies ({@code
 * dispatcher.ingest.max-queued-bytes}), counted as a body's bytes arrive until the last holder of its messages lets
 * go; and at most {@code perClient} requests of one client at once ({@code
 * dispatcher.ingest.max-concurrent-requests-per-client}, {@link ClientShares}). A request past the request bound,
 * past its client's share, or one whose declared length would not fit the bytes held now, is refused before its
 * body is read ({@link IngestProblem.Overloaded}, {@link IngestProblem.Overloaded.Reason#BUSY}, {@link
 * IngestProblem.Overloaded.Reason#CLIENT_BUSY} or {@link IngestProblem.Overloaded.Reason#MEMORY_FULL}); one admitted whose bytes, as they arrive, would take the held bytes
 * past the bound is refused then ({@code MEMORY_FULL}), its bytes released. So a flood of large requests costs no
 * memory beyond the bound whatever the database does, and a slow body holds only what it has sent, not what it
 * declared: eight bodies declaring 8 MiB and trickling a byte at a time leave the budget to everyone else (and end
 * at {@code dispatcher.ingest.body-timeout}).
 *
 * <p>A request reserves its declared length up to {@link #UPFRONT_BYTES} at admission (its body limit when it
 * declares none); the rest of its body's bytes are {@linkplain Reservation#grow(long) added to its reservation} as
 * they are read. Its messages
 * are smaller than its body (JSON is compacted, base64 decoded), so the reservation also covers them while they wait
 * for their lane and while a statement writes them. The reservation is counted ({@link Reservation}): the request
 * holds it until it is answered, and the ingest writer holds it from the time it queues the messages until its
 * statement has finished with them, which may be after the answer (a statement still running when its request timed
 * out); the bytes return when both let go.
 *
 * <p>Thread-safe: two atomic counters and the clients' shares; a refused request changes none of them.
 */
public final class IngestBudget {

    /**
     * What a request reserves at admission, at most: the whole of a small body (so small requests are admitted
     * exactly as long as they fit), the first 64 KiB of a larger one, which grows as its bytes arrive.
     */
    static final long UPFRONT_BYTES = 64 * 1024;

    private final long maxBytes;
    private final int maxRequests;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger requests = new AtomicInteger();
    private final ClientShares shares;

    /** A budget whose one client may take every request slot. */
    IngestBudget(long maxBytes, int maxRequests) {
        this(maxBytes, maxRequests, maxRequests);
    }

    IngestBudget(long maxBytes, int maxRequests, int perClient) {
        this.maxBytes = maxBytes;
        this.maxRequests = maxRequests;
        this.shares = new ClientShares(perClient);
    }

    /**
     * Runs {@code work} for a request once it fits the bounds (requests, its client's share, bytes), with its body's
     * reservation (at most {@link #UPFRONT_BYTES}; the body's further bytes are added as they are read); fails with
     * an {@link IngestProblem.Overloaded}, without subscribing to {@code work}, when it does not. Lazy: nothing is counted until subscription, and everything is given back when the
     * returned Mono terminates or is cancelled.
     *
     * @param client who the request counts against in its share: its credential, or its address when it has none
     * @param declared the body's declared length ({@code Content-Length}), or -1 when unknown
     * @param bodyLimit the most bytes the request's body may take (past it, {@link IngestProblem.TooLarge})
     */
    <T> Mono<T> admit(String client, long declared, long bodyLimit, Function<Reservation, Mono<T>> work) {
        return Mono.defer(() -> {
            long size = declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
            if (requests.incrementAndGet() > maxRequests) {
                requests.decrementAndGet();
                return Mono.error(new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.BUSY, "ingest is"
                        + " answering " + maxRequests + " requests at once, its bound"
                        + " dispatcher.ingest.max-concurrent-requests; nothing was written, retry later"));
            }
            if (!shares.tryTake(client)) {
                requests.decrementAndGet();
                return Mono.error(new IngestProblem.Overloaded(IngestProblem.Overloaded.Reason.CLIENT_BUSY, "this"
                        + " client (" + client + ") already has " + shares.share() + " ingest requests in flight, its"
                        + " share dispatcher.ingest.max-concurrent-requests-per-client; nothing was written, retry"
                        + " when one of them is answered"));
            }
            long upfront = Math.min(size, UPFRONT_BYTES);
            long held = bytes.addAndGet(upfront) - upfront;
            if (held + size > maxBytes) {
                bytes.addAndGet(-upfront);
                shares.release(client);
                requests.decrementAndGet();
                return Mono.error(memoryFull(held, size));
            }
            Reservation reservation = new Reservation(upfront);
            return Mono.defer(() -> work.apply(reservation)).doFinally(signal -> {
                shares.release(client);
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

    /** Requests of {@code client} admitted and not yet answered. */
    public int requestsOf(String client) {
        return shares.held(client);
    }

    /** Clients with a request admitted and not yet answered: the size of the per-client table. */
    public int clients() {
        return shares.clients();
    }

    /**
     * A request body's bytes, counted by holder: the request, and the ingest writer while it {@linkplain #retain()
     * retains} them. The bytes return to the budget when the last holder {@linkplain #release() releases}.
     */
    final class Reservation {

        /** Bytes this request holds in the budget. */
        private final AtomicLong size;
        /** Bytes of its body read so far. */
        private final AtomicLong received = new AtomicLong();
        private final AtomicInteger holders = new AtomicInteger(1);

        private Reservation(long upfront) {
            this.size = new AtomicLong(upfront);
        }

        /**
         * Counts {@code more} bytes of the body just read, adding to the budget what they take past the reservation.
         *
         * @throws IngestProblem.Overloaded ({@code MEMORY_FULL}) when that would take the budget past its bound;
         *     nothing is added then
         */
        void grow(long more) {
            long excess = received.addAndGet(more) - size.get();
            if (excess <= 0) {
                return;
            }
            long held = bytes.addAndGet(excess);
            if (held > maxBytes) {
                bytes.addAndGet(-excess);
                received.addAndGet(-more);
                throw memoryFull(held - excess, excess);
            }
            size.addAndGet(excess);
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
