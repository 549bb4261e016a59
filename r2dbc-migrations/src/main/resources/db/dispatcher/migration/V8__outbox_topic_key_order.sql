-- Dispatcher schema, version 8: the relay's unit of order is (topic, key) by default.
--
-- Under dispatcher.relay.ordering=per-key a key's rows are ordered within each topic: a key's head is its first live
-- row in one topic, so a head that waits (to be retried, or held back while its topic is missing) holds only that
-- key's rows in that topic. The per-key claim (OutboxSql.CLAIM_PER_KEY) walks the distinct (topic, key) units with a
-- loose index scan, one descent per unit, and reads each unit's run in seq order, on the index below.
-- outbox_message_live_key_idx (message_key, seq) stays: the option dispatcher.relay.ordering=per-key-across-topics
-- (OutboxSql.CLAIM_PER_KEY_ACROSS_TOPICS, the order before this version) walks keys on it, and operators list a
-- key's live rows with it.
--
-- Nothing is rewritten and no row changes: the index holds live keyed rows (PENDING or RETRY_SCHEDULED, leased or
-- not), whatever their lease, attempts or visibility; DELIVERED and DEAD_LETTERED rows never enter it. Building it
-- reads the table once under a lock that blocks writes (inserts, claims and transitions wait; reads do not); it is as
-- small as the live backlog, but the scan reads the delivered history too: run it when the outbox is quiet if that
-- history is large. Rows leased when it runs keep their leases, and are finished by the relays that hold them.
--
-- "length(topic) > 0" holds for every row (outbox_message_topic_check) and is there for the planner: only the
-- statements that say it (the per-key claim's walk and runs) can use this index. Without it, the across-topics claim,
-- on statistics showing few live rows, walked keys on this index, whose leading column is the topic: a scan of every
-- live entry per key instead of one descent (the reason V4 gave outbox_message_live_seq_idx its "seq > 0").
CREATE INDEX outbox_message_live_topic_key_idx
    ON outbox_message (topic, message_key, seq)
    WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND message_key IS NOT NULL AND length(topic) > 0;
