package dev.dispatcher.app.queue;

import dev.dispatcher.app.observe.PeriodicPass;
import dev.dispatcher.app.store.AuditTrail;
import dev.dispatcher.app.store.LeasedQueue;
import dev.dispatcher.domain.MessageStatus;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Deletes finished outbox and inbox rows and audit rows past their retention, in bounded batches (each
 * pass deletes at most {@value #BATCH} rows per statement, repeating until a pass deletes fewer), so tables stay
 * bounded without long-held locks.
 */
public final class Retention {

    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    /** Rows one statement deletes at most. */
    public static final int BATCH = 1000;

    private final String what;
    private final List<Supplier<Mono<Long>>> passes;
    private final PeriodicPass periodic;

    /**
     * Retention over {@code passes}, each deleting at most {@link #BATCH} rows per call and repeated while it
     * comes back full; {@code what} names the rows in logs.
     */
    public Retention(String what, List<Supplier<Mono<Long>>> passes) {
        this.what = what;
        this.passes = List.copyOf(passes);
        this.periodic = new PeriodicPass(() -> purge().then(),
                e -> log.warn("retention pass over {} rows failed: {}", what, e.toString()));
    }

    /** The outbox's retention: delivered and dead-lettered rows, and audit rows, each past its age. */
    public static Retention outbox(LeasedQueue<?> outbox, AuditTrail auditTrail, Duration delivered,
            Duration deadLettered, Duration audit) {
        return new Retention("outbox and audit", List.of(
                () -> outbox.purgeFinished(MessageStatus.DELIVERED, delivered, BATCH),
                () -> outbox.purgeFinished(MessageStatus.DEAD_LETTERED, deadLettered, BATCH),
                () -> auditTrail.purgeOlderThan(audit, BATCH)));
    }

    /**
     * An inbox's retention: each consumer's completed rows past the deduplication window, and its dead letters
     * (poison records included) past {@code deadLettered}.
     */
    public static Retention inbox(List<? extends LeasedQueue<?>> consumers, Duration completed,
            Duration deadLettered) {
        return new Retention("finished inbox", consumers.stream()
                .<Supplier<Mono<Long>>>flatMap(c -> Stream.of(
                        () -> c.purgeFinished(MessageStatus.COMPLETED, completed, BATCH),
                        () -> c.purgeFinished(MessageStatus.DEAD_LETTERED, deadLettered, BATCH)))
                .toList());
    }

    /** One full pass; emits the number of rows deleted. */
    public Mono<Long> purge() {
        return Flux.fromIterable(passes)
                .concatMap(Retention::drain)
                .reduce(0L, Long::sum)
                .doOnNext(n -> {
                    if (n > 0) {
                        log.info("retention deleted {} {} rows", n, what);
                    }
                });
    }

    private static Mono<Long> drain(Supplier<Mono<Long>> pass) {
        return Mono.defer(pass)
                .expand(n -> n >= BATCH ? Mono.defer(pass) : Mono.empty())
                .reduce(0L, Long::sum);
    }

    /** Runs a pass every {@code every}, starting after one interval. */
    public void start(Duration every) {
        periodic.start(every, every);
    }

    public void stop() {
        periodic.stop();
    }
}
