package dev.dispatcher.app.store;

import io.r2dbc.pool.ConnectionPool;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

/** {@link LeasedQueueContract} on the outbox ({@code outbox_message}, unordered claims). */
class OutboxQueueContractIT extends LeasedQueueContract<ClaimedOutboxMessage> {

    @Override
    String prefix() {
        return "contract_outbox";
    }

    @Override
    LeasedQueue<ClaimedOutboxMessage> create(ConnectionPool pool) {
        return OutboxStore.r2dbc(pool, Ordering.NONE);
    }

    @Override
    String table() {
        return "outbox_message";
    }

    @Override
    String rowCondition() {
        return "id = ?";
    }

    @Override
    Object idParameter(String id) {
        return UUID.fromString(id);
    }

    @Override
    String insert(Duration visibleDelay) throws SQLException {
        UUID id = UUID.randomUUID();
        exec("""
                INSERT INTO outbox_message (id, topic, event_type, payload, visible_after)
                VALUES (?, 'contract', 'TestEvent', '\\x7b7d'::bytea, now() + ?::bigint * interval '1 millisecond')
                """, id, visibleDelay.toMillis());
        return id.toString();
    }

    @Override
    String successAtColumn() {
        return "delivered_at";
    }

    @Override
    String successStatus() {
        return "DELIVERED";
    }
}
