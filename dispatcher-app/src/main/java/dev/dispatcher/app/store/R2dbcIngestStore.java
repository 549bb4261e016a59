package dev.dispatcher.app.store;

import dev.dispatcher.sql.OutboxSql;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link IngestStore} on PostgreSQL: {@link OutboxSql#INGEST} (key locks, insert and the read of ids that
 * existed, in one round trip), then {@link OutboxSql#FIND_FOR_INGEST} for inputs it neither wrote nor found,
 * each on a pooled connection in autocommit ({@link Connections#autoCommit}, which replaces a connection that saw
 * the database read-only). Thread-safe and stateless.
 */
final class R2dbcIngestStore implements IngestStore {

    private final ConnectionFactory connections;

    R2dbcIngestStore(ConnectionFactory connections) {
        this.connections = connections;
    }

    /** {@code sql} with {@code inputs} bound, each result row read with {@code reader}. */
    private <T> Flux<T> query(String sql, Inputs inputs, Function<Readable, T> reader) {
        return Connections.autoCommit(connections, c -> Flux.from(inputs.bind(c.createStatement(sql)).execute())
                .flatMap(result -> result.map(reader)));
    }

    @Override
    public Mono<List<InsertOutcome>> write(List<IngestMessage> messages) {
        if (messages.isEmpty()) {
            return Mono.just(List.of());
        }
        return Mono.defer(() -> {
            Inputs inputs = Inputs.of(messages);
            return query(OutboxSql.INGEST, inputs, row -> new Row(row.get("ord", Long.class), entry(row),
                            Boolean.TRUE.equals(row.get("written", Boolean.class)),
                            Boolean.TRUE.equals(row.get("same_content", Boolean.class))))
                    .collectList()
                    .flatMap(rows -> resolve(messages, rows));
        });
    }

    /** A row of {@code INGEST} or {@code FIND_FOR_INGEST}, read off the driver's row at once. */
    private record Row(Long ord, StoredEntry entry, boolean written, boolean sameContent) {
    }

    private Mono<List<InsertOutcome>> resolve(List<IngestMessage> messages, List<Row> rows) {
        InsertOutcome[] results = new InsertOutcome[messages.size()];
        Map<UUID, StoredEntry> written = new HashMap<>();
        for (Row row : rows) {
            if (row.written()) {
                written.put(row.entry().id(), row.entry());
            } else {
                results[Math.toIntExact(row.ord()) - 1] = existing(row);
            }
        }
        List<Integer> unresolved = new ArrayList<>();
        for (int i = 0; i < results.length; i++) {
            if (results[i] == null) {
                // the first input with a written id wrote it; a later one with the same id is read back below
                StoredEntry entry = written.remove(messages.get(i).id());
                if (entry != null) {
                    results[i] = new InsertOutcome.Inserted(entry);
                } else {
                    unresolved.add(i);
                }
            }
        }
        if (unresolved.isEmpty()) {
            return Mono.just(List.of(results));
        }
        List<IngestMessage> rest = unresolved.stream().map(messages::get).toList();
        return query(OutboxSql.FIND_FOR_INGEST, Inputs.of(rest), row -> new Row(row.get("ord", Long.class),
                        entry(row), false, Boolean.TRUE.equals(row.get("same_content", Boolean.class))))
                .collectList()
                .handle((found, sink) -> {
                    for (Row row : found) {
                        results[unresolved.get(Math.toIntExact(row.ord()) - 1)] = existing(row);
                    }
                    for (int index : unresolved) {
                        if (results[index] == null) {
                            sink.error(new RowRemovedException(messages.get(index).id()));
                            return;
                        }
                    }
                    sink.next(List.of(results));
                });
    }

    private static InsertOutcome existing(Row row) {
        return row.sameContent() ? new InsertOutcome.SameContent(row.entry())
                : new InsertOutcome.OtherContent(row.entry());
    }

    private static StoredEntry entry(Readable row) {
        return new StoredEntry(row.get("id", UUID.class), row.get("seq", Long.class),
                row.get("status", String.class), row.get("version", Long.class), row.get("created_at", Instant.class));
    }

    /** The array parameters of {@code OutboxSql.INGEST} and {@code FIND_FOR_INGEST}, in input order. */
    private record Inputs(UUID[] ids, String[] topics, String[] keys, String[] types, byte[] payloads,
            Integer[] payloadFrom, Integer[] payloadLength, String[] contentTypes, String[] headers,
            String[] correlationIds, String[] causationIds, Long[] delays) {

        static Inputs of(List<IngestMessage> messages) {
            int n = messages.size();
            Inputs in = new Inputs(new UUID[n], new String[n], new String[n], new String[n], null, new Integer[n],
                    new Integer[n], new String[n], new String[n], new String[n], new String[n], new Long[n]);
            ByteArrayOutputStream payloads = new ByteArrayOutputStream(
                    messages.stream().mapToInt(m -> m.payload().length).sum());
            for (int i = 0; i < n; i++) {
                IngestMessage m = messages.get(i);
                in.ids[i] = m.id();
                in.topics[i] = m.topic();
                in.keys[i] = m.key();
                in.types[i] = m.type();
                in.payloadFrom[i] = payloads.size() + 1;
                in.payloadLength[i] = m.payload().length;
                payloads.writeBytes(m.payload());
                in.contentTypes[i] = m.contentType();
                in.headers[i] = m.headersJson();
                in.correlationIds[i] = m.correlationId();
                in.causationIds[i] = m.causationId();
                in.delays[i] = m.delayMillis();
            }
            return new Inputs(in.ids, in.topics, in.keys, in.types, payloads.toByteArray(), in.payloadFrom,
                    in.payloadLength, in.contentTypes, in.headers, in.correlationIds, in.causationIds, in.delays);
        }

        Statement bind(Statement spec) {
            return spec.bind(0, ids).bind(1, topics).bind(2, keys).bind(3, types).bind(4, payloads)
                    .bind(5, payloadFrom).bind(6, payloadLength).bind(7, contentTypes).bind(8, headers)
                    .bind(9, correlationIds).bind(10, causationIds).bind(11, delays);
        }
    }
}
