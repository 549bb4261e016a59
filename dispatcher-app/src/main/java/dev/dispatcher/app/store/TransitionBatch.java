package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionClassifier;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.sql.LeasedTableSql;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One batch of transition requests as the array parameters of a leased queue's TRANSITION statement, and the
 * classification of each row that statement returns. Shared by the outbox and inbox stores, whose statements bind
 * the same arrays and return the same {@code snap_*}, {@code cur_*}, {@code upd_*} and {@code db_now} columns.
 *
 * <p>Requests for the same id are de-duplicated here, first one wins, matching the statement's own de-duplication.
 */
final class TransitionBatch {

    /**
     * The statement for this batch, bound: {@code one} (scalar parameters) for a single distinct request, whose
     * planning is a fraction of the array form's, else {@code many}. {@code scope} is bound as {@code $6} when not
     * null (the inbox's consumer name).
     */
    Statement statement(Connection c, String many, String one, boolean uuidIds, String scope) {
        Statement s;
        if (distinct.size() == 1) {
            TransitionRequest r = distinct.values().iterator().next();
            s = c.createStatement(one)
                    .bind("$1", uuidIds ? r.leased().id().asUuid() : r.leased().id().value())
                    .bind("$2", r.leased().lease().token())
                    .bind("$3", kinds()[0])
                    .bind("$4", millis()[0]);
            String error = errors()[0];
            s = error == null ? s.bindNull("$5", String.class) : s.bind("$5", error);
        } else {
            s = c.createStatement(many)
                    .bind("$1", uuidIds ? uuids() : ids()).bind("$2", tokens()).bind("$3", kinds())
                    .bind("$4", millis()).bind("$5", errors());
        }
        return scope == null ? s : s.bind("$6", scope);
    }

    /** Longest {@code last_error} kept. */
    public static final int MAX_ERROR = 2000;

    private final Queue queue;
    private final Map<String, TransitionRequest> distinct = new LinkedHashMap<>();

    TransitionBatch(Queue queue, List<TransitionRequest> requests) {
        this.queue = queue;
        requests.forEach(r -> distinct.putIfAbsent(r.leased().id().value(), r));
    }

    public int size() {
        return distinct.size();
    }

    /** Ids as text (the inbox's {@code message_id}). */
    public String[] ids() {
        return distinct.keySet().toArray(String[]::new);
    }

    /** Ids as UUIDs (the outbox's {@code id}). */
    public UUID[] uuids() {
        return distinct.values().stream().map(r -> r.leased().id().asUuid()).toArray(UUID[]::new);
    }

    public UUID[] tokens() {
        return distinct.values().stream().map(r -> r.leased().lease().token()).toArray(UUID[]::new);
    }

    /** The kinds the statement switches on ({@link LeasedTableSql.Kind#sql()}), never a metric tag. */
    public String[] kinds() {
        return distinct.values().stream().map(r -> kind(r.transition()).sql()).toArray(String[]::new);
    }

    /** The statement's kind of {@code transition}. */
    static LeasedTableSql.Kind kind(Transition transition) {
        return switch (transition) {
            case Transition.Deliver d -> LeasedTableSql.Kind.DELIVER;
            case Transition.ScheduleRetry r -> LeasedTableSql.Kind.RETRY;
            case Transition.DeadLetter d -> LeasedTableSql.Kind.DEAD_LETTER;
            case Transition.RenewLease r -> LeasedTableSql.Kind.RENEW;
            case Transition.Release r -> LeasedTableSql.Kind.RELEASE;
        };
    }

    /** Retry delay, renewal length or release delay in milliseconds, 0 for the other transitions. */
    public Long[] millis() {
        return distinct.values().stream().map(r -> switch (r.transition()) {
            case Transition.ScheduleRetry retry -> retry.delay().toMillis();
            case Transition.RenewLease renew -> renew.duration().toMillis();
            case Transition.Deliver d -> 0L;
            case Transition.DeadLetter d -> 0L;
            case Transition.Release rel -> rel.delay().toMillis();
        }).toArray(Long[]::new);
    }

    /** The error kept as {@code last_error}, or null. */
    public String[] errors() {
        return distinct.values().stream().map(r -> truncate(switch (r.transition()) {
            case Transition.ScheduleRetry retry -> retry.error();
            case Transition.DeadLetter dead -> dead.reason();
            case Transition.Deliver d -> null;
            case Transition.RenewLease renew -> null;
            case Transition.Release rel -> rel.error();
        })).toArray(String[]::new);
    }

    private static String truncate(String error) {
        return error == null || error.length() <= MAX_ERROR ? error : error.substring(0, MAX_ERROR);
    }

    /** Classifies one returned row, whose {@code id} column is read as text. */
    public TransitionResult classify(Readable row) {
        MessageId messageId = MessageId.of(String.valueOf(row.get("id", Object.class)));
        return classify(row, state(row, "snap", messageId), null);
    }

    /**
     * Classifies one returned row with the snapshot view and time of an earlier statement of the same invocation
     * (the fast Deliver that did not write this row; see {@link LeasedTransitions}) instead of this statement's.
     * {@code now} null: this statement's time (the earlier statement saw no row, so its time is not needed).
     */
    TransitionResult classify(Readable row, Optional<MessageState> snapshot, Instant now) {
        String id = String.valueOf(row.get("id", Object.class));
        TransitionRequest request = distinct.get(id);
        MessageId messageId = MessageId.of(id);
        return TransitionClassifier.classify(queue, request.transition(), request.leased(), snapshot,
                state(row, "cur", messageId), state(row, "upd", messageId),
                now != null ? now : row.get("db_now", Instant.class));
    }

    private static Optional<MessageState> state(Readable row, String prefix, MessageId id) {
        if (!Boolean.TRUE.equals(row.get(prefix + "_found", Boolean.class))) {
            return Optional.empty();
        }
        return Optional.of(new MessageState(id, MessageStatus.parse(row.get(prefix + "_status", String.class)),
                row.get(prefix + "_token", UUID.class), row.get(prefix + "_until", Instant.class),
                row.get(prefix + "_version", Long.class), row.get(prefix + "_attempts", Integer.class)));
    }
}
