-- Dispatcher schema, version 3: an index for the operator's view of inbox dead letters.
--
-- The console and GET /v1/inbox/consumers count each consumer's dead letters and page through them. Without an
-- index that is a scan of the whole inbox table, completed rows included (kept for the deduplication window,
-- dispatcher.retention.inbox-completed), on every refresh. Partial, like outbox_message_dead_letter_idx: it holds
-- only dead letters, which are rare, so it costs inserts nothing and transitions to DEAD_LETTERED one entry.
CREATE INDEX inbox_message_dead_letter_idx
    ON inbox_message (consumer_name, seq)
    WHERE status = 'DEAD_LETTERED';
