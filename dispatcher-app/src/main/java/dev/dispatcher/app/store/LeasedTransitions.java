package dev.dispatcher.app.store;

import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageState;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs a batch of transition requests on one connection, for both leased tables: the {@code Deliver} requests held
 * under one batch's lease token first go through the table's fast Deliver statement (one guarded UPDATE: {@code
 * DELIVER_LEASED} for several, see {@code LeasedTableSql.deliverLeased}, or {@code DELIVER_ONE} with scalar
 * parameters for one); every other request, and each Deliver that statement did not write, goes through the
 * classified {@code TRANSITION} statement as before. A batch whose rows were all published is one round trip and
 * one write per row.
 *
 * <p>Outcomes keep their meaning: a row the fast statement wrote is {@code Applied} with the row it left, which the
 * statement does not send back ({@link dev.dispatcher.domain.LeasedMessage#afterDeliver}: exact for any row written
 * under the guard); a row it did not write is classified by the classified statement's locked ({@code cur}) and written
 * ({@code upd}) views with the fast statement's snapshot view and time, which is what a single classified statement
 * starting at that moment would have seen: a writer that committed while the fast statement waited is {@code
 * ConcurrencyLost}, a row deleted meanwhile {@code Missing}, a row already finished {@code Terminal}, another lease's
 * row {@code StaleLease}. Results come in first-occurrence order of the distinct ids, as {@link TransitionBatch}
 * returns them.
 *
 * @param queue which table
 * @param transition the classified statement (array form)
 * @param transitionOne its one-request form
 * @param deliverLeased the fast Deliver statement (array form)
 * @param deliverOne its one-row form
 * @param uuidIds whether ids bind as {@code uuid} (the outbox) or text (the inbox)
 * @param scope the inbox's consumer name, or null
 */
record LeasedTransitions(Queue queue, String transition, String transitionOne, String deliverLeased,
        String deliverOne, boolean uuidIds, String scope) {

    /**
     * The fast statement's view of one input it did not write: the row in its snapshot and its time, or both null
     * for a row absent from that snapshot (an empty snapshot view; the classified statement's own time is used).
     */
    private record Seen(String id, MessageState state, Instant now) {
    }

    /** Runs {@code requests} (not empty) on {@code c}; one result per distinct id. */
    Flux<TransitionResult> run(Connection c, List<TransitionRequest> requests) {
        return Flux.defer(() -> {
            Map<String, TransitionRequest> distinct = new LinkedHashMap<>();
            requests.forEach(r -> distinct.putIfAbsent(r.leased().id().value(), r));
            List<TransitionRequest> fast = fastDelivers(distinct.values());
            Set<String> fastIds = new HashSet<>();
            fast.forEach(r -> fastIds.add(r.leased().id().value()));
            if (fast.isEmpty()) {
                return classified(c, List.copyOf(distinct.values()), Map.of());
            }
            return Flux.from(fastStatement(c, fast).execute())
                    .flatMap(r -> r.map(LeasedTransitions::seen))
                    .collectMap(Seen::id)
                    .flatMapMany(notWritten -> {
                        Map<String, TransitionResult> results = new HashMap<>();
                        List<TransitionRequest> rest = new ArrayList<>();
                        Map<String, Seen> earlier = new HashMap<>();
                        for (TransitionRequest r : distinct.values()) {
                            String id = r.leased().id().value();
                            Seen s = notWritten.get(id);
                            if (fastIds.contains(id) && s == null) {
                                results.put(id, new TransitionResult(TransitionOutcome.APPLIED,
                                        r.leased().afterDeliver(queue)));
                            } else {
                                rest.add(r);
                                if (s != null) {
                                    earlier.put(id, s); // not written: classified with the fast one's snapshot
                                }
                            }
                        }
                        Mono<Map<String, TransitionResult>> all = rest.isEmpty()
                                ? Mono.just(results)
                                : classified(c, rest, earlier).collect(() -> results,
                                        (m, r) -> m.put(r.entry().id().value(), r));
                        return all.flatMapIterable(m -> distinct.keySet().stream().map(m::get).toList());
                    });
        });
    }

    /**
     * The Deliver requests under the first Deliver's token: one claimed batch. Requests under other tokens (rare:
     * a caller mixing batches) take the classified statement.
     */
    private static List<TransitionRequest> fastDelivers(Iterable<TransitionRequest> distinct) {
        List<TransitionRequest> fast = new ArrayList<>();
        UUID token = null;
        for (TransitionRequest r : distinct) {
            if (r.transition() instanceof Transition.Deliver) {
                UUID t = r.leased().lease().token();
                if (token == null) {
                    token = t;
                }
                if (token.equals(t)) {
                    fast.add(r);
                }
            }
        }
        return fast;
    }

    private Statement fastStatement(Connection c, List<TransitionRequest> fast) {
        UUID token = fast.getFirst().leased().lease().token();
        Statement s;
        if (fast.size() == 1) {
            // one row: the scalar form, cheaper in a handler's transaction than an array statement for one row
            MessageId id = fast.getFirst().leased().id();
            s = c.createStatement(deliverOne).bind("$1", uuidIds ? id.asUuid() : id.value()).bind("$2", token);
        } else {
            Object ids = uuidIds
                    ? fast.stream().map(r -> r.leased().id().asUuid()).toArray(UUID[]::new)
                    : fast.stream().map(r -> r.leased().id().value()).toArray(String[]::new);
            s = c.createStatement(deliverLeased).bind("$1", ids).bind("$2", token);
        }
        return scope == null ? s : s.bind("$3", scope);
    }

    private Flux<TransitionResult> classified(Connection c, List<TransitionRequest> requests,
            Map<String, Seen> earlier) {
        TransitionBatch batch = new TransitionBatch(queue, requests);
        return Flux.from(batch.statement(c, transition, transitionOne, uuidIds, scope).execute())
                .flatMap(r -> r.map(row -> {
                    Seen e = earlier.get(String.valueOf(row.get("id", Object.class)));
                    return e == null
                            ? batch.classify(row)
                            : batch.classify(row, Optional.ofNullable(e.state()), e.now());
                }));
    }

    /** A row of the fast statement: an input it did not write, as its snapshot saw it. */
    private static Seen seen(Readable row) {
        String id = String.valueOf(row.get("id", Object.class));
        if (!Boolean.TRUE.equals(row.get("found", Boolean.class))) {
            return new Seen(id, null, null);
        }
        MessageState state = new MessageState(MessageId.of(id), MessageStatus.parse(row.get("status", String.class)),
                row.get("lease_token", UUID.class), row.get("lease_until", Instant.class),
                row.get("version", Long.class), row.get("attempts", Integer.class));
        return new Seen(id, state, row.get("db_now", Instant.class));
    }
}
