package dev.dispatcher.app.store;

import io.r2dbc.pool.ConnectionPool;

/**
 * {@link LeasedQueueContract} on one inbox consumer's rows claimed with per-key order: every lease, transition and
 * classification case holds for rows the per-key claim leased (the contract's rows have no key, so it takes them in
 * seq order, as the unordered claim does). Per-key cases: {@link InboxPerKeyClaimIT}.
 */
class InboxPerKeyQueueContractIT extends InboxQueueContractIT {

    @Override
    String prefix() {
        return "contract_inbox_perkey";
    }

    @Override
    LeasedQueue<ClaimedInboxMessage> create(ConnectionPool pool) {
        return InboxStore.r2dbc(pool).consumer(CONSUMER, Ordering.PER_KEY, Integer.MAX_VALUE);
    }
}
