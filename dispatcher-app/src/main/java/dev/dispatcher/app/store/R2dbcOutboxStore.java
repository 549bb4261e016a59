package dev.dispatcher.app.store;

import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link OutboxStore} on R2DBC and PostgreSQL. Thread-safe; the per-key walk cursor is the only shared state. */
final class R2dbcOutboxStore implements OutboxStore {

    /** Fast Deliver of a batch, the classified statement for the rest ({@link LeasedTransitions}). */
    private static final LeasedTransitions TRANSITIONS = new LeasedTransitions(Queue.OUTBOX, OutboxSql.TRANSITION,
            OutboxSql.TRANSITION_ONE, OutboxSql.DELIVER_LEASED, OutboxSql.DELIVER_ONE, true, null);

    private final ConnectionFactory connections;
    private final Ordering ordering;
    /** Where the next per-key walk starts; written after each claim, read by the next. Owner: this store. */
    private final AtomicReference<Cursor> keyCursor = new AtomicReference<>(Cursor.START);
    private static final Comparator<ClaimedOutboxMessage> BY_SEQ = Comparator.comparingLong(m -> m.leased().seq());

    R2dbcOutboxStore(ConnectionFactory connections, Ordering ordering) {
        this.connections = connections;
        this.ordering = ordering;
    }

    private <T> Flux<T> run(Function<Connection, Flux<T>> work) {
        return Connections.autoCommit(connections, work);
    }

    @Override
    public Mono<List<ClaimedOutboxMessage>> claim(String owner, int limit, Duration lease) {
        return claimBatch(owner, limit, lease, ordering);
    }

    @Override
    public Mono<List<ClaimedOutboxMessage>> claim(String owner, int limit, long maxBytes, Duration lease) {
        return claimBatch(owner, limit, maxBytes, lease, ordering);
    }

    @Override
    public Mono<List<ClaimedOutboxMessage>> claimBatch(String owner, int limit, long maxBytes, Duration lease,
            Ordering ordering) {
        return Mono.defer(() -> {
            Cursor cursor = keyCursor.get();
            Function<Connection, Flux<ClaimedOutboxMessage>> claim = c -> {
                Statement s = switch (ordering) {
                    case PER_KEY -> c.createStatement(OutboxSql.CLAIM_PER_KEY).bind("$4", cursor.key())
                            .bind("$5", maxBytes).bind("$6", cursor.topic());
                    case PER_KEY_ACROSS_TOPICS -> c.createStatement(OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS)
                            .bind("$4", cursor.key()).bind("$5", maxBytes);
                    case NONE -> c.createStatement(OutboxSql.CLAIM_UNORDERED).bind("$4", maxBytes);
                };
                s.bind("$1", owner).bind("$2", lease.toMillis()).bind("$3", limit);
                return Flux.from(s.execute()).flatMap(r -> r.map(R2dbcOutboxStore::claimed));
            };
            // the unordered claim reads the live index in seq order (Connections.inIndexOrder); the per-key walk
            // descends the key index once per key whatever the statistics, and stays in autocommit with its cached
            // generic plan (GenericPlanIT), which saves planning it on every claim
            Flux<ClaimedOutboxMessage> rows = ordering == Ordering.NONE
                    ? Connections.inIndexOrder(connections, claim)
                    : run(claim);
            // in seq order, as the claim's contract says: an UPDATE's RETURNING order follows its plan, not the
            // CTE's ORDER BY (OutboxQueueContractIT once saw a 4-row claim come back as rows 3, 4, 1, 2)
            return rows.collectSortedList(BY_SEQ)
                    .doOnNext(batch -> {
                        if (ordering.perKey()) {
                            keyCursor.set(nextCursor(cursor, batch, ordering == Ordering.PER_KEY));
                        }
                    });
        });
    }

    /**
     * Where a per-key walk starts: after {@code (topic, key)} under {@link Ordering#PER_KEY}, after {@code key}
     * (topic empty) under {@link Ordering#PER_KEY_ACROSS_TOPICS}. Only the walk's fairness depends on it (every unit
     * with backlog is reached, the walk wraps around), never which rows may be claimed.
     */
    record Cursor(String topic, String key) implements Comparable<Cursor> {

        static final Cursor START = new Cursor("", "");

        @Override
        public int compareTo(Cursor other) {
            int byTopic = topic.compareTo(other.topic);
            return byTopic != 0 ? byTopic : key.compareTo(other.key);
        }
    }

    /**
     * The greatest unit claimed after the cursor, else the greatest claimed (the walk wrapped), else the start; a unit
     * is {@code (topic, key)} when {@code byTopic}, else the key.
     */
    static Cursor nextCursor(Cursor cursor, List<ClaimedOutboxMessage> batch, boolean byTopic) {
        Cursor after = null;
        Cursor any = null;
        for (ClaimedOutboxMessage m : batch) {
            String key = m.key();
            if (key == null) {
                continue;
            }
            Cursor unit = new Cursor(byTopic ? m.topic() : "", key);
            if (unit.compareTo(cursor) > 0 && (after == null || unit.compareTo(after) > 0)) {
                after = unit;
            }
            if (any == null || unit.compareTo(any) > 0) {
                any = unit;
            }
        }
        return after != null ? after : any != null && any.compareTo(cursor) < 0 ? any : Cursor.START;
    }

    /**
     * A claimed row, read by column position in {@code OutboxSql}'s claim {@code RETURNING} order (a lookup by name
     * lower-cases the name and hashes it, per column and row: a few percent of the relay's CPU in a drain).
     */
    private static ClaimedOutboxMessage claimed(Readable row) {
        UUID id = row.get(0, UUID.class);
        Lease lease = new Lease(row.get(13, String.class), row.get(14, UUID.class), row.get(15, Instant.class));
        LeasedMessage leased = new LeasedMessage(MessageId.of(id), lease, row.get(12, Long.class),
                row.get(11, Integer.class), MessageStatus.parse(row.get(10, String.class)),
                row.get(3, String.class), row.get(1, Long.class));
        return new ClaimedOutboxMessage(leased, row.get(2, String.class), row.get(4, String.class),
                row.get(5, byte[].class), row.get(6, String.class), StoredHeaders.parse(row.get(7, String.class)),
                row.get(8, String.class), row.get(9, String.class), row.get(16, Instant.class),
                Boolean.TRUE.equals(row.get(17, Boolean.class)));
    }

    @Override
    public Mono<List<TransitionResult>> transition(List<TransitionRequest> requests) {
        if (requests.isEmpty()) {
            return Mono.just(List.of());
        }
        return run(c -> TRANSITIONS.run(c, requests)).collectList();
    }

    @Override
    public Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit) {
        if (!status.isTerminal()) {
            return Mono.error(new IllegalArgumentException("only finished rows are purged, not " + status));
        }
        // planned per call: on statistics of a drained outbox the generic plan reads the whole table (GenericPlanIT)
        return Connections.plannedPerCall(connections, c -> Flux.from(c.createStatement(OutboxSql.DELETE_FINISHED)
                        .bind("$1", status.name()).bind("$2", age.toMillis()).bind("$3", limit)
                        .execute())
                .flatMap(r -> Mono.from(r.getRowsUpdated())))
                .reduce(0L, Long::sum);
    }

    @Override
    public Mono<Backlog> backlog() {
        return run(c -> Flux.from(c.createStatement(OutboxSql.BACKLOG).execute())
                        .flatMap(r -> r.map(Backlog::of)))
                .next()
                .defaultIfEmpty(Backlog.EMPTY);
    }

    @Override
    public Mono<Long> backlogUpperBound() {
        return run(c -> Flux.from(c.createStatement(OutboxSql.BACKLOG_BOUND).execute())
                        .flatMap(r -> r.map(row -> row.get("bound", Long.class))))
                .next()
                .defaultIfEmpty(0L);
    }

    @Override
    public String toString() {
        return "R2dbcOutboxStore";
    }
}
