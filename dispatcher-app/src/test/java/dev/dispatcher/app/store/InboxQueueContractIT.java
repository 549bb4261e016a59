package dev.dispatcher.app.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.domain.Transition;
import dev.dispatcher.domain.TransitionOutcome;
import dev.dispatcher.domain.TransitionResult;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link LeasedQueueContract} on one inbox consumer's rows ({@code inbox_message}, scoped by consumer name), plus
 * what only the inbox does: a handler's writes and the completion commit in one transaction, or not at all.
 */
class InboxQueueContractIT extends LeasedQueueContract<ClaimedInboxMessage> {

    static final String CONSUMER = "contract";
    private final AtomicLong offsets = new AtomicLong();

    @Override
    String prefix() {
        return "contract_inbox";
    }

    @Override
    LeasedQueue<ClaimedInboxMessage> create(ConnectionPool pool) {
        return InboxStore.r2dbc(pool).consumer(CONSUMER);
    }

    @Override
    String table() {
        return "inbox_message";
    }

    @Override
    String rowCondition() {
        return "consumer_name = '" + CONSUMER + "' AND message_id = ?";
    }

    @Override
    Object idParameter(String id) {
        return id;
    }

    @Override
    String insert(Duration visibleDelay) throws SQLException {
        String id = "msg-" + UUID.randomUUID();
        exec("""
                INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,
                                           event_type, payload, visible_after)
                VALUES (?, ?, 'contract', 0, ?, 'TestEvent', '\\x7b7d'::bytea,
                        now() + ?::bigint * interval '1 millisecond')
                """, CONSUMER, id, offsets.incrementAndGet(), visibleDelay.toMillis());
        // another consumer's row with the same id: every statement must stay within its own consumer
        exec("""
                INSERT INTO inbox_message (consumer_name, message_id, source_topic, source_partition, source_offset,
                                           event_type, payload)
                VALUES ('other', ?, 'contract', 0, 0, 'TestEvent', '\\x7b7d'::bytea)
                """, id);
        return id;
    }

    @Override
    String successAtColumn() {
        return "completed_at";
    }

    @Override
    String successStatus() {
        return "COMPLETED";
    }

    private InboxStore.Consumer rows() {
        return (InboxStore.Consumer) queue();
    }

    private static Mono<Void> effect(Connection c, String id) {
        return Flux.from(c.createStatement("INSERT INTO effect (message_id) VALUES ($1)").bind("$1", id).execute())
                .flatMap(r -> r.getRowsUpdated()).then();
    }

    private void createEffectTable() throws SQLException {
        exec("CREATE TABLE IF NOT EXISTS effect (message_id text NOT NULL)");
        exec("DELETE FROM effect");
    }

    @Test
    void handlerWritesAndTheCompletionCommitTogetherWhenApplied() throws Exception {
        createEffectTable();
        String id = insert();
        ClaimedInboxMessage m = claimOne("worker-a");

        TransitionResult result = rows().deliverWithin(new TransitionRequest(m.leased(), new Transition.Deliver()),
                c -> effect(c, id)).block(BLOCK);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.APPLIED);
        assertThat(existing(id).status()).isEqualTo("COMPLETED");
        assertThat(countEffects()).isEqualTo(1);
        assertThat(exec("UPDATE inbox_message SET event_type = event_type WHERE consumer_name = 'other'"
                + " AND status = 'PENDING'")).as("the other consumer's row is untouched").isEqualTo(1);
    }

    @Test
    void handlerWritesRollBackWhenTheLeaseWasLost() throws Exception {
        createEffectTable();
        String id = insert();
        ClaimedInboxMessage a = claimOne("worker-a");
        expireLease(id);
        claimOne("worker-b");

        TransitionResult result = rows().deliverWithin(new TransitionRequest(a.leased(), new Transition.Deliver()),
                c -> effect(c, id)).block(BLOCK);

        assertThat(result.outcome()).isEqualTo(TransitionOutcome.STALE_LEASE);
        assertThat(countEffects()).as("the lost lease's effect never commits").isZero();
        assertThat(existing(id).status()).isEqualTo("PENDING");
    }

    @Test
    void aFailingHandlerRollsBackItsWritesAndLeavesTheRowLeased() throws Exception {
        createEffectTable();
        String id = insert();
        ClaimedInboxMessage m = claimOne("worker-a");

        Mono<TransitionResult> run = rows().deliverWithin(new TransitionRequest(m.leased(), new Transition.Deliver()),
                c -> effect(c, id).then(Mono.error(new IllegalStateException("handler failed"))));

        assertThat(run.onErrorResume(IllegalStateException.class, e -> Mono.empty()).block(BLOCK)).isNull();
        assertThat(countEffects()).isZero();
        Row row = existing(id);
        assertThat(row.status()).isEqualTo("PENDING");
        assertThat(row.leaseToken()).isEqualTo(m.leased().lease().token());
    }

    private long countEffects() throws SQLException {
        try (var c = jdbc(); var rs = c.createStatement().executeQuery("SELECT count(*) FROM effect")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
