package dev.dispatcher.app.store;

import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.sql.InboxSql;
import dev.dispatcher.sql.SessionSettings;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link InboxStore} on R2DBC and PostgreSQL. Stateless and thread-safe. */
final class R2dbcInboxStore implements InboxStore {

    /**
     * Opens a handler's transaction, READ COMMITTED, with PostgreSQL's default plan choice ({@code auto},
     * {@link SessionSettings#HANDLER_DEFAULTS}) for the handler's own statements: they are the application's SQL,
     * which may depend on its parameters' values in ways {@code GenericPlanIT} does not check, while the service's
     * connections otherwise always use the cached generic plan ({@link SessionSettings#SERVICE}). {@code auto}
     * still caches the plans of one-row statements (the handler's and {@code InboxSql.TRANSITION_ONE}), whose
     * planning would otherwise cost more than their execution on every message. One simple-query round trip, like a plain {@code BEGIN}; the driver follows the
     * transaction state from the server's replies.
     */
    static final String BEGIN_HANDLER_TRANSACTION = Connections.BEGIN + "; " + SessionSettings.HANDLER_DEFAULTS;

    private final ConnectionFactory connections;

    R2dbcInboxStore(ConnectionFactory connections) {
        this.connections = Objects.requireNonNull(connections, "connections");
    }

    @Override
    public Mono<Set<MessageId>> store(String consumer, List<InboxRecord> records, Ordering ordering) {
        if (records.isEmpty()) {
            return Mono.just(Set.of());
        }
        return Mono.defer(() -> {
            int n = records.size();
            String[] ids = new String[n];
            String[] topics = new String[n];
            Integer[] partitions = new Integer[n];
            Long[] offsets = new Long[n];
            String[] keys = new String[n];
            String[] types = new String[n];
            String[] headers = new String[n];
            String[] payloads = new String[n];
            String[] keyBytes = new String[n];
            String[] reasons = new String[n];
            Base64.Encoder base64 = Base64.getEncoder();
            for (int i = 0; i < n; i++) {
                InboxRecord r = records.get(i);
                ids[i] = r.id().value();
                topics[i] = r.topic();
                partitions[i] = r.partition();
                offsets[i] = r.offset();
                keys[i] = r.key();
                types[i] = r.eventType();
                headers[i] = StoredHeaders.format(r.headers());
                payloads[i] = r.payload() == null ? null : base64.encodeToString(r.payload());
                keyBytes[i] = r.keyBytes() == null ? null : base64.encodeToString(r.keyBytes());
                reasons[i] = r.deadLetterReason();
            }
            return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(InboxSql.INSERT)
                            .bind("$1", consumer).bind("$2", ids).bind("$3", topics).bind("$4", partitions)
                            .bind("$5", offsets).bind("$6", keys).bind("$7", types).bind("$8", headers)
                            .bind("$9", payloads).bind("$10", keyBytes).bind("$11", reasons)
                            .bind("$12", ordering.perKey())
                            .execute())
                    .flatMap(r -> r.map(row -> MessageId.of(row.get("message_id", String.class)))))
                    .collect(HashSet<MessageId>::new, Set::add)
                    .map(Set::copyOf);
        });
    }

    @Override
    public Mono<Boolean> backlogAtLeast(String consumer, long bound) {
        return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(InboxSql.BACKLOG_AT_LEAST)
                        .bind("$1", consumer).bind("$2", bound)
                        .execute())
                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("over", Boolean.class)))))
                .next()
                .defaultIfEmpty(false);
    }

    @Override
    public Consumer consumer(String consumer, Ordering ordering, int keyRun) {
        if (keyRun < 1) {
            throw new IllegalArgumentException("keyRun must be at least 1, not " + keyRun);
        }
        return new ConsumerRows(Objects.requireNonNull(consumer, "consumer"), Objects.requireNonNull(ordering,
                "ordering"), keyRun);
    }

    @Override
    public String toString() {
        return "R2dbcInboxStore";
    }

    /**
     * One consumer's rows; every statement is scoped by {@code consumer_name}. Thread-safe; the per-key walk cursor
     * is the only shared state.
     */
    private final class ConsumerRows implements Consumer {

        private final String consumer;
        private final Ordering ordering;
        /** The most rows of one key a per-key claim takes. */
        private final int keyRun;
        /** Fast Deliver of a batch, the classified statement for the rest ({@link LeasedTransitions}). */
        private final LeasedTransitions transitions;
        /** Where the next per-key walk starts; written after each claim, read by the next. Owner: these rows. */
        private final AtomicReference<byte[]> keyCursor = new AtomicReference<>(new byte[0]);

        ConsumerRows(String consumer, Ordering ordering, int keyRun) {
            this.consumer = consumer;
            this.ordering = ordering;
            this.keyRun = keyRun;
            this.transitions = new LeasedTransitions(Queue.INBOX, InboxSql.TRANSITION, InboxSql.TRANSITION_ONE,
                    InboxSql.DELIVER_LEASED, InboxSql.DELIVER_ONE, false, consumer);
        }

        @Override
        public String name() {
            return consumer;
        }

        @Override
        public Queue queue() {
            return Queue.INBOX;
        }

        @Override
        public Mono<List<ClaimedInboxMessage>> claim(String owner, int limit, Duration lease) {
            return switch (ordering) {
                // reads the consumer's live index in seq order, planned per call (Connections.inIndexOrder)
                case NONE -> Connections.inIndexOrder(connections, c -> Flux.from(c.createStatement(InboxSql.CLAIM)
                                .bind("$1", consumer).bind("$2", owner).bind("$3", lease.toMillis())
                                .bind("$4", limit)
                                .execute())
                        .flatMap(r -> r.map(R2dbcInboxStore::claimed)))
                        .collectSortedList(BY_SEQ);
                // the outbox's per-key walk: one descent of the key index per key, with its cached generic plan in
                // autocommit (GenericPlanIT, SchemaIT check it on skewed and drained statistics)
                case PER_KEY, PER_KEY_ACROSS_TOPICS -> Mono.defer(() -> {
                    byte[] cursor = keyCursor.get();
                    return Connections.autoCommit(connections, c -> Flux.from(c
                                    .createStatement(InboxSql.CLAIM_PER_KEY)
                                    .bind("$1", owner).bind("$2", lease.toMillis()).bind("$3", limit)
                                    .bind("$4", cursor).bind("$5", consumer).bind("$6", keyRun)
                                    .execute())
                            .flatMap(r -> r.map(R2dbcInboxStore::claimed)))
                            .collectSortedList(BY_SEQ)
                            .doOnNext(batch -> keyCursor.set(nextCursor(cursor, batch)));
                });
            };
        }

        @Override
        public Mono<List<TransitionResult>> transition(List<TransitionRequest> requests) {
            if (requests.isEmpty()) {
                return Mono.just(List.of());
            }
            return Connections.autoCommit(connections, c -> execute(c, requests)).collectList();
        }

        @Override
        public Mono<TransitionResult> deliverWithin(TransitionRequest deliver,
                Function<Connection, Mono<Void>> work) {
            return Mono.usingWhen(connections.create(),
                    c -> Flux.from(c.createStatement(BEGIN_HANDLER_TRANSACTION).execute())
                            .flatMap(Result::getRowsUpdated)
                            .then(Mono.defer(() -> work.apply(c)))
                            .then(Mono.defer(() -> execute(c, List.of(deliver)).single()))
                            .flatMap(result -> (result.isApplied()
                                    ? Mono.from(c.commitTransaction())
                                    : Connections.rollback(c))
                                    .thenReturn(result))
                            .onErrorResume(e -> Connections.rollback(c).then(Mono.error(e))),
                    Connection::close,
                    Connections::closeAfter,
                    Connections::rollbackAndClose); // cancelled (drain timeout)
        }

        private Flux<TransitionResult> execute(Connection c, List<TransitionRequest> requests) {
            return transitions.run(c, requests);
        }

        @Override
        public Mono<Backlog> backlog() {
            return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(InboxSql.BACKLOG)
                                    .bind("$1", consumer).execute())
                            .flatMap(r -> r.map(Backlog::of)))
                    .next()
                    .defaultIfEmpty(Backlog.EMPTY);
        }

        @Override
        public Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit) {
            if (!status.isTerminal()) {
                return Mono.error(new IllegalArgumentException("only finished rows are purged, not " + status));
            }
            return Connections.autoCommit(connections, c -> Flux.from(c.createStatement(InboxSql.DELETE_FINISHED)
                            .bind("$1", consumer).bind("$2", status.name()).bind("$3", age.toMillis())
                            .bind("$4", limit)
                            .execute())
                    .flatMap(r -> Mono.from(r.getRowsUpdated())))
                    .reduce(0L, Long::sum);
        }

        @Override
        public String toString() {
            return "inbox consumer " + consumer;
        }
    }

    /** In seq order: an UPDATE's RETURNING order follows its plan, not the claim's ORDER BY. */
    private static final Comparator<ClaimedInboxMessage> BY_SEQ = Comparator.comparingLong(m -> m.leased().seq());

    /**
     * Where the walk after {@code batch} starts: the greatest key claimed after the cursor, else the greatest claimed
     * (the walk wrapped), else the start. Keys compare as PostgreSQL compares {@code bytea}, byte by byte unsigned.
     */
    static byte[] nextCursor(byte[] cursor, List<ClaimedInboxMessage> batch) {
        byte[] after = null;
        byte[] any = null;
        for (ClaimedInboxMessage m : batch) {
            byte[] key = m.orderingKey();
            if (key == null) {
                continue;
            }
            if (Arrays.compareUnsigned(key, cursor) > 0 && (after == null || Arrays.compareUnsigned(key, after) > 0)) {
                after = key;
            }
            if (any == null || Arrays.compareUnsigned(key, any) > 0) {
                any = key;
            }
        }
        return after != null ? after : any != null && Arrays.compareUnsigned(any, cursor) < 0 ? any : new byte[0];
    }

    private static ClaimedInboxMessage claimed(Readable row) {
        MessageId id = MessageId.of(row.get("message_id", String.class));
        Lease lease = new Lease(row.get("lease_owner", String.class), row.get("lease_token", UUID.class),
                row.get("lease_until", Instant.class));
        LeasedMessage leased = new LeasedMessage(id, lease, row.get("version", Long.class),
                row.get("attempts", Integer.class), MessageStatus.parse(row.get("status", String.class)),
                row.get("message_key", String.class), row.get("seq", Long.class));
        return new ClaimedInboxMessage(leased, row.get("consumer_name", String.class),
                row.get("source_topic", String.class), row.get("source_partition", Integer.class),
                row.get("source_offset", Long.class), row.get("message_key_bytes", byte[].class),
                row.get("event_type", String.class),
                StoredHeaders.parse(row.get("headers", String.class)), row.get("payload", byte[].class),
                row.get("created_at", Instant.class), Boolean.TRUE.equals(row.get("lease_expired", Boolean.class)));
    }
}
