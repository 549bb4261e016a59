package dev.dispatcher.app.inbox;

import dev.dispatcher.app.store.DatabaseFailures;
import dev.dispatcher.app.store.InboxRecord;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.MessageId;
import io.r2dbc.spi.R2dbcException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Stores one polled batch of a consumer's records so that no value can stop the partition: the batch goes in with
 * one statement; if the database refuses a value in it ({@link DatabaseFailures#isRecordData}: a data exception, a
 * check, a limit), the batch is stored again one record at a time, and each record the database still refuses is
 * stored dead-lettered with the database's reason instead ({@link IntakeCheck#refusedByDatabase}). Every statement
 * is idempotent ({@code ON CONFLICT DO NOTHING}), so repeating part of a batch is safe.
 *
 * <p>Transient failures (lost connections, timeouts) are retried with backoff, forever, as before: they say nothing
 * about the records. Any other error, or a dead-letter row the database refuses too, is signalled; the intake then
 * subscribes again and the batch is redelivered.
 */
final class IntakeWriter {

    private static final Logger log = LoggerFactory.getLogger(IntakeWriter.class);

    /**
     * What one batch left in the database.
     *
     * @param rows the rows as stored (a record the database refused is here in its dead-letter form)
     * @param inserted the ids this call inserted; every other row was a duplicate
     */
    record Stored(List<InboxRecord> rows, Set<MessageId> inserted) {
    }

    private final InboxStore store;
    private final String consumer;
    private final Ordering ordering;

    /** A writer for {@code consumer}, storing as its {@code ordering} needs ({@link InboxStore#store}). */
    IntakeWriter(InboxStore store, String consumer, Ordering ordering) {
        this.store = Objects.requireNonNull(store, "store");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.ordering = Objects.requireNonNull(ordering, "ordering");
    }

    /** Stores {@code rows}; lazy. */
    Mono<Stored> write(List<InboxRecord> rows) {
        return retrying(rows)
                .map(inserted -> new Stored(rows, inserted))
                .onErrorResume(DatabaseFailures::isRecordData, e -> {
                    log.warn("inbox {}: the database refused a value in a batch of {} records ({}); storing them"
                            + " one by one", consumer, rows.size(), describe(e));
                    return oneByOne(rows);
                });
    }

    private Mono<Stored> oneByOne(List<InboxRecord> rows) {
        return Flux.fromIterable(rows)
                .concatMap(row -> retrying(List.of(row))
                        .map(inserted -> new Stored(List.of(row), inserted))
                        .onErrorResume(DatabaseFailures::isRecordData, e -> {
                            InboxRecord refused = IntakeCheck.refusedByDatabase(row, describe(e));
                            return retrying(List.of(refused)).map(inserted -> new Stored(List.of(refused), inserted));
                        }))
                .collectList()
                .map(parts -> {
                    List<InboxRecord> stored = new ArrayList<>(rows.size());
                    Set<MessageId> inserted = new HashSet<>();
                    parts.forEach(p -> {
                        stored.addAll(p.rows());
                        inserted.addAll(p.inserted());
                    });
                    return new Stored(stored, inserted);
                });
    }

    private Mono<Set<MessageId>> retrying(List<InboxRecord> rows) {
        return Mono.defer(() -> store.store(consumer, rows, ordering))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100))
                        .maxBackoff(Duration.ofSeconds(5))
                        .filter(DatabaseFailures::isRetryable)
                        .doBeforeRetry(s -> log.warn("inbox {}: storing {} records failed ({}); retrying", consumer,
                                rows.size(), s.failure().toString())));
    }

    /** The database's reason, as stored in {@code last_error}: SQLSTATE and message. */
    static String describe(Throwable e) {
        String state = DatabaseFailures.sqlState(e);
        Throwable shown = e;
        while (shown.getCause() != null && shown.getCause() != shown && !(shown instanceof R2dbcException)) {
            shown = shown.getCause();
        }
        return (state == null ? "" : "SQLSTATE " + state + ": ") + shown.getMessage();
    }
}
