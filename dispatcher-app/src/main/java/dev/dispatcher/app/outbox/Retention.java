package dev.dispatcher.app.outbox;

import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.sql.AuditSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Deletes delivered and dead-lettered outbox rows and audit rows past their retention, in bounded batches (each
 * pass deletes at most {@value #BATCH} rows per statement, repeating until a pass deletes fewer), so tables stay
 * bounded without long-held locks.
 */
public final class Retention {

    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    static final int BATCH = 1000;

    private final OutboxStore store;
    private final ConnectionFactory connections;
    private final Duration delivered;
    private final Duration deadLettered;
    private final Duration audit;
    private volatile Disposable running;

    public Retention(OutboxStore store, ConnectionFactory connections, Duration delivered, Duration deadLettered,
            Duration audit) {
        this.store = store;
        this.connections = connections;
        this.delivered = delivered;
        this.deadLettered = deadLettered;
        this.audit = audit;
    }

    /** One full pass; emits the number of rows deleted. */
    public Mono<Long> purge() {
        return Flux.concat(
                        drain(() -> store.purgeFinished(MessageStatus.DELIVERED, delivered, BATCH)),
                        drain(() -> store.purgeFinished(MessageStatus.DEAD_LETTERED, deadLettered, BATCH)),
                        drain(this::purgeAudit))
                .reduce(0L, Long::sum)
                .doOnNext(n -> {
                    if (n > 0) {
                        log.info("retention deleted {} rows", n);
                    }
                });
    }

    private static Mono<Long> drain(java.util.function.Supplier<Mono<Long>> pass) {
        return Mono.defer(pass)
                .expand(n -> n >= BATCH ? Mono.defer(pass) : Mono.empty())
                .reduce(0L, Long::sum);
    }

    private Mono<Long> purgeAudit() {
        return Flux.usingWhen(connections.create(),
                        c -> Flux.from(c.createStatement(AuditSql.DELETE_OLD)
                                        .bind("$1", audit.toMillis()).bind("$2", BATCH).execute())
                                .flatMap(r -> Mono.from(r.getRowsUpdated())),
                        Connection::close)
                .reduce(0L, Long::sum);
    }

    /** Runs a pass every {@code every}, starting after one interval. */
    public synchronized void start(Duration every) {
        if (running == null) {
            running = Flux.interval(every, every).onBackpressureDrop()
                    .concatMap(t -> purge().onErrorResume(e -> {
                        log.warn("retention pass failed: {}", e.toString());
                        return Mono.empty();
                    }))
                    .subscribe();
        }
    }

    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }
}
