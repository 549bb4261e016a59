package dev.dispatcher.app.api;

import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes ingested messages, all of one request in one transaction: the writer locks of every key first (in lock
 * order, so overlapping batches never deadlock), then an insert per message that does nothing when the id
 * exists, in which case the stored row is compared with the request. A request that fails writes nothing.
 */
final class IngestStore {

    private final ConnectionFactory connections;

    IngestStore(ConnectionFactory connections) {
        this.connections = connections;
    }

    /** One result per message, in request order. */
    Mono<List<IngestResult>> write(List<IngestMessage> messages) {
        String[] keys = messages.stream().map(IngestMessage::key).filter(Objects::nonNull).distinct()
                .toArray(String[]::new);
        return Transactions.inTransaction(connections, tx -> {
            Mono<Void> locks = keys.length == 0 ? Mono.empty()
                    : Flux.from(tx.createStatement(OutboxSql.LOCK_KEYS).bind("$1", keys).execute())
                            .flatMap(r -> r.map(row -> 1)).then();
            return locks.thenMany(Flux.fromIterable(messages).concatMap(m -> writeOne(tx, m))).collectList();
        });
    }

    private static Mono<IngestResult> writeOne(Connection tx, IngestMessage m) {
        Mono<IngestResult> inserted = Flux.from(bind(tx.createStatement(OutboxSql.INSERT_IF_ABSENT), m).execute())
                .flatMap(r -> r.map(row -> (IngestResult) new IngestResult.Accepted(entry(row))))
                .next();
        Mono<IngestResult> existing = Flux.from(bind(tx.createStatement(OutboxSql.FIND_FOR_INGEST), m).execute())
                .flatMap(r -> r.map(row -> Boolean.TRUE.equals(row.get("same_content", Boolean.class))
                        ? (IngestResult) new IngestResult.Duplicate(entry(row))
                        : new IngestResult.Conflict(entry(row))))
                .next()
                // deleted by retention between the two statements: extremely rare, and not a success
                .switchIfEmpty(Mono.error(() -> ApiProblem.conflict("id-conflict", "message " + m.id()
                        + " was being removed while this request ran; retry")));
        return inserted.switchIfEmpty(existing);
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

    private static IngestResult.StoredEntry entry(Readable row) {
        return new IngestResult.StoredEntry(row.get("id", UUID.class), row.get("seq", Long.class),
                row.get("status", String.class), row.get("version", Long.class), row.get("created_at", Instant.class));
    }
}
