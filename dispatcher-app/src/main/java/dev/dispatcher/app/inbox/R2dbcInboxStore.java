package dev.dispatcher.app.inbox;

import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.app.store.StoredHeaders;
import dev.dispatcher.app.store.TransitionBatch;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.sql.InboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link InboxStore} on R2DBC and PostgreSQL. Stateless and thread-safe. */
final class R2dbcInboxStore implements InboxStore {


    private final ConnectionFactory connections;

    R2dbcInboxStore(ConnectionFactory connections) {
        this.connections = connections;
    }

    private <T> Flux<T> run(Function<Connection, Flux<T>> work) {
        return Flux.usingWhen(connections.create(), work, Connection::close, (c, e) -> c.close(), Connection::close);
    }

    @Override
    public Mono<Set<MessageId>> store(String consumer, List<ReceivedRecord> records) {
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
            Base64.Encoder base64 = Base64.getEncoder();
            for (int i = 0; i < n; i++) {
                ReceivedRecord r = records.get(i);
                ids[i] = r.messageId().value();
                topics[i] = r.topic();
                partitions[i] = r.partition();
                offsets[i] = r.offset();
                keys[i] = r.key();
                types[i] = r.eventType();
                headers[i] = StoredHeaders.format(r.headers());
                payloads[i] = base64.encodeToString(r.payload());
            }
            return run(c -> Flux.from(c.createStatement(InboxSql.INSERT)
                            .bind("$1", consumer).bind("$2", ids).bind("$3", topics).bind("$4", partitions)
                            .bind("$5", offsets).bind("$6", keys).bind("$7", types).bind("$8", headers)
                            .bind("$9", payloads)
                            .execute())
                    .flatMap(r -> r.map(row -> MessageId.of(row.get("message_id", String.class)))))
                    .collect(HashSet<MessageId>::new, Set::add)
                    .map(Set::copyOf);
        });
    }

    @Override
    public Mono<List<LeasedInboxMessage>> claimBatch(String consumer, String owner, int limit, Duration lease) {
        return run(c -> Flux.from(c.createStatement(InboxSql.CLAIM)
                        .bind("$1", consumer).bind("$2", owner).bind("$3", lease.toMillis()).bind("$4", limit)
                        .execute())
                .flatMap(r -> r.map(R2dbcInboxStore::claimed)))
                .collectList();
    }

    private static LeasedInboxMessage claimed(Readable row) {
        MessageId id = MessageId.of(row.get("message_id", String.class));
        Lease lease = new Lease(row.get("lease_owner", String.class), row.get("lease_token", UUID.class),
                row.get("lease_until", Instant.class));
        int attempts = row.get("attempts", Integer.class);
        LeasedMessage leased = new LeasedMessage(id, lease, row.get("version", Long.class), attempts,
                MessageStatus.parse(row.get("status", String.class)), row.get("message_key", String.class),
                row.get("seq", Long.class));
        InboxMessage message = new InboxMessage(row.get("consumer_name", String.class), id,
                row.get("source_topic", String.class), row.get("source_partition", Integer.class),
                row.get("source_offset", Long.class), row.get("message_key", String.class),
                row.get("event_type", String.class), StoredHeaders.parse(row.get("headers", String.class)),
                row.get("payload", byte[].class), attempts, row.get("created_at", Instant.class));
        return new LeasedInboxMessage(leased, message, Boolean.TRUE.equals(row.get("lease_expired", Boolean.class)));
    }

    @Override
    public Mono<List<TransitionResult>> transition(String consumer, List<TransitionRequest> requests) {
        if (requests.isEmpty()) {
            return Mono.just(List.of());
        }
        return run(c -> execute(c, consumer, requests)).collectList();
    }

    @Override
    public Mono<TransitionResult> transition(Connection connection, String consumer, TransitionRequest request) {
        return execute(connection, consumer, List.of(request)).single();
    }

    private Flux<TransitionResult> execute(Connection c, String consumer, List<TransitionRequest> requests) {
        return Flux.defer(() -> {
            TransitionBatch batch = new TransitionBatch(Queue.INBOX, requests);
            return Flux.from(c.createStatement(InboxSql.TRANSITION)
                            .bind("$1", consumer).bind("$2", batch.ids()).bind("$3", batch.tokens())
                            .bind("$4", batch.kinds()).bind("$5", batch.millis()).bind("$6", batch.errors())
                            .execute())
                    .flatMap(r -> r.map(batch::classify));
        });
    }

    @Override
    public Mono<Long> purgeCompleted(Duration age, int limit) {
        return run(c -> Flux.from(c.createStatement(InboxSql.DELETE_COMPLETED)
                        .bind("$1", age.toMillis()).bind("$2", limit)
                        .execute())
                .flatMap(r -> Mono.from(r.getRowsUpdated())))
                .reduce(0L, Long::sum);
    }

    @Override
    public Mono<Boolean> backlogAtLeast(String consumer, long bound) {
        return run(c -> Flux.from(c.createStatement(InboxSql.BACKLOG_AT_LEAST)
                        .bind("$1", consumer).bind("$2", bound)
                        .execute())
                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("over", Boolean.class)))))
                .next()
                .defaultIfEmpty(false);
    }

    @Override
    public Mono<Backlog> backlog() {
        return run(c -> Flux.from(c.createStatement(InboxSql.BACKLOG).execute())
                        .flatMap(r -> r.map(Backlog::of)))
                .next()
                .defaultIfEmpty(Backlog.EMPTY);
    }

    @Override
    public String toString() {
        return "R2dbcInboxStore";
    }
}
