package dev.dispatcher.app.api;

import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes ingested messages: an insert that does nothing when the id exists, in which case the stored row is
 * compared with the request. A key's writer lock is held from before its row takes a {@code seq} until the row
 * commits, so a key's rows commit in seq order.
 *
 * <p>One message ({@link #writeOne}) is one autocommit statement in the common case, key lock and insert together
 * ({@link OutboxSql#INGEST_ONE}); only a taken id costs a second statement to read the stored row. A batch
 * ({@link #writeBatch}) is one transaction: the locks of all its keys (in lock order, so overlapping batches never
 * deadlock on them), one multi-row insert, and one read of the rows whose ids were taken, if any. A request that
 * fails writes nothing.
 */
final class IngestStore {

    private final ConnectionFactory connections;

    IngestStore(ConnectionFactory connections) {
        this.connections = connections;
    }

    /** The result of ingesting one message. */
    Mono<IngestResult> writeOne(IngestMessage m) {
        // the id is taken: ON CONFLICT waited for its inserter to finish, so that row is committed by the read
        return Transactions.autoCommit(connections,
                c -> insertOne(c, m).switchIfEmpty(Mono.defer(() -> findOne(c, m))));
    }

    private static Mono<IngestResult> insertOne(Connection c, IngestMessage m) {
        Statement insert = bind(c.createStatement(OutboxSql.INGEST_ONE), m);
        if (m.delayMillis() == null) {
            insert.bindNull("$10", Long.class);
        } else {
            insert.bind("$10", m.delayMillis());
        }
        return Flux.from(insert.execute())
                .flatMap(r -> r.map(row -> (IngestResult) new IngestResult.Accepted(entry(row))))
                .next();
    }

    private static Mono<IngestResult> findOne(Connection c, IngestMessage m) {
        return Flux.from(bind(c.createStatement(OutboxSql.FIND_FOR_INGEST), m).execute())
                .flatMap(r -> r.map(row -> existing(row, row.get("same_content", Boolean.class))))
                .next()
                .switchIfEmpty(Mono.error(() -> removedWhileRunning(m.id())));
    }

    /** One result per message, in request order. */
    Mono<List<IngestResult>> writeBatch(List<IngestMessage> messages) {
        String[] keys = messages.stream().map(IngestMessage::key).filter(Objects::nonNull).distinct()
                .toArray(String[]::new);
        return Transactions.inTransaction(connections, tx -> {
            Mono<Void> locks = keys.length == 0 ? Mono.empty()
                    : Flux.from(tx.createStatement(OutboxSql.LOCK_KEYS).bind("$1", keys).execute())
                            .flatMap(r -> r.map(row -> 1)).then();
            return locks.then(Mono.defer(() -> insertBatch(tx, messages)))
                    .flatMap(results -> findTaken(tx, messages, results));
        });
    }

    /** Inserts the batch; the result array holds an {@code Accepted} where this batch wrote the row. */
    private static Mono<IngestResult[]> insertBatch(Connection tx, List<IngestMessage> messages) {
        Long[] delays = messages.stream().map(IngestMessage::delayMillis).toArray(Long[]::new);
        return Flux.from(bindBatch(tx.createStatement(OutboxSql.INGEST_BATCH), messages).bind("$12", delays)
                        .execute())
                .flatMap(r -> r.map(IngestStore::entry))
                .collectMap(IngestResult.StoredEntry::id)
                .map(written -> {
                    IngestResult[] results = new IngestResult[messages.size()];
                    for (int i = 0; i < results.length; i++) {
                        // the first occurrence of an id wrote it (rows are inserted in request order); a later
                        // one is read back and compared, like any other taken id
                        IngestResult.StoredEntry entry = written.remove(messages.get(i).id());
                        if (entry != null) {
                            results[i] = new IngestResult.Accepted(entry);
                        }
                    }
                    return results;
                });
    }

    /** Fills in the messages whose ids were taken, reading all of them in one statement. */
    private static Mono<List<IngestResult>> findTaken(Connection tx, List<IngestMessage> messages,
            IngestResult[] results) {
        List<Integer> taken = new ArrayList<>();
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                taken.add(i);
            }
        }
        if (taken.isEmpty()) {
            return Mono.just(List.of(results));
        }
        List<IngestMessage> takenMessages = taken.stream().map(messages::get).toList();
        return Flux.from(bindBatch(tx.createStatement(OutboxSql.FIND_BATCH_FOR_INGEST), takenMessages).execute())
                .flatMap(r -> r.map(row -> Map.entry(taken.get(Math.toIntExact(row.get("ord", Long.class)) - 1),
                        existing(row, row.get("same_content", Boolean.class)))))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .handle((found, sink) -> {
                    IngestResult[] all = results.clone();
                    for (int index : taken) {
                        all[index] = found.get(index);
                        if (all[index] == null) {
                            sink.error(removedWhileRunning(messages.get(index).id()));
                            return;
                        }
                    }
                    sink.next(List.of(all));
                });
    }

    private static IngestResult existing(Readable row, Boolean sameContent) {
        return Boolean.TRUE.equals(sameContent) ? new IngestResult.Duplicate(entry(row))
                : new IngestResult.Conflict(entry(row));
    }

    /** Deleted by retention between the insert and the read: extremely rare, and not a success. */
    private static ApiProblem removedWhileRunning(UUID id) {
        return ApiProblem.conflict("id-conflict", "message " + id + " was being removed while this request ran; retry");
    }

    private static Statement bind(Statement s, IngestMessage m) {
        s.bind("$1", m.id()).bind("$2", m.topic());
        nullable(s, "$3", m.key());
        s.bind("$4", m.type()).bind("$5", m.payload());
        nullable(s, "$6", m.contentType());
        nullable(s, "$7", m.headersJson());
        nullable(s, "$8", m.correlationId());
        nullable(s, "$9", m.causationId());
        return s;
    }

    private static void nullable(Statement s, String name, String value) {
        if (value == null) {
            s.bindNull(name, String.class);
        } else {
            s.bind(name, value);
        }
    }

    /** Binds the arrays {@code OutboxSql.INGEST_BATCH} and {@code FIND_BATCH_FOR_INGEST} take. */
    private static Statement bindBatch(Statement s, List<IngestMessage> messages) {
        int n = messages.size();
        UUID[] ids = new UUID[n];
        String[] topics = new String[n];
        String[] keys = new String[n];
        String[] types = new String[n];
        Integer[] payloadFrom = new Integer[n];
        Integer[] payloadLength = new Integer[n];
        String[] contentTypes = new String[n];
        String[] headers = new String[n];
        String[] correlationIds = new String[n];
        String[] causationIds = new String[n];
        ByteArrayOutputStream payloads = new ByteArrayOutputStream(
                messages.stream().mapToInt(m -> m.payload().length).sum());
        for (int i = 0; i < n; i++) {
            IngestMessage m = messages.get(i);
            ids[i] = m.id();
            topics[i] = m.topic();
            keys[i] = m.key();
            types[i] = m.type();
            payloadFrom[i] = payloads.size() + 1;
            payloadLength[i] = m.payload().length;
            payloads.writeBytes(m.payload());
            contentTypes[i] = m.contentType();
            headers[i] = m.headersJson();
            correlationIds[i] = m.correlationId();
            causationIds[i] = m.causationId();
        }
        return s.bind("$1", ids).bind("$2", topics).bind("$3", keys).bind("$4", types)
                .bind("$5", payloads.toByteArray()).bind("$6", payloadFrom).bind("$7", payloadLength)
                .bind("$8", contentTypes).bind("$9", headers).bind("$10", correlationIds).bind("$11", causationIds);
    }

    private static IngestResult.StoredEntry entry(Readable row) {
        return new IngestResult.StoredEntry(row.get("id", UUID.class), row.get("seq", Long.class),
                row.get("status", String.class), row.get("version", Long.class), row.get("created_at", Instant.class));
    }
}
