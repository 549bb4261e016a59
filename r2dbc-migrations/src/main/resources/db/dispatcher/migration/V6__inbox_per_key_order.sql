-- Dispatcher schema, version 6: per-key order for inbox consumers (dispatcher.inbox.consumers[i].ordering=per-key).
--
-- A consumer with per-key order hands a key's messages to its handler one at a time, in seq order, with the same
-- claim as the outbox's per-key relay (InboxSql.CLAIM_PER_KEY, generated from one template with
-- OutboxSql.CLAIM_PER_KEY). seq is the inbox's own arrival order: rows of one topic partition take their seqs in
-- offset order (intake stores a batch ordered by topic, partition and offset, and a partition is stored by one
-- statement at a time), and a per-key consumer's intake holds its keys' advisory locks from before its rows take a
-- seq until they commit, so a key's rows commit in seq order whatever topic or partition they came from. A key that
-- arrives on two topics (or on two partitions, after partitions were added) is ordered by when its records were
-- stored: Kafka orders nothing across partitions, and neither can the inbox.
--
-- Building the indexes below reads the table once each under a lock that blocks intake; they hold live rows only, so
-- they are small, but the scans read the completed history too: run it when the inbox is quiet if that history is
-- large.
--
-- A key is its bytes (V5): coalesce(message_key_bytes, convert_to(message_key, 'UTF8')). convert_to is STABLE only
-- because a conversion could be redefined (CREATE CONVERSION); for the database's own encoding to UTF-8 it gives the
-- same bytes for the same text for as long as the database exists, so this function holds it as IMMUTABLE, which an
-- index expression requires. PL/pgSQL rather than SQL: an IMMUTABLE SQL function around a STABLE one is never
-- inlined, and inserting keyed rows cost more with a non-inlined SQL function in the index than with this.
CREATE FUNCTION dispatcher_inbox_key(key_bytes bytea, key_text text) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS
$$
BEGIN
    RETURN coalesce(key_bytes, convert_to(key_text, 'UTF8'));
END;
$$;

-- Per-key claim: per consumer, a loose index scan over distinct keys (one descent per key) and each key's run in
-- seq order. Partial on live keyed rows, by the plain columns, so rows without a key and finished rows never enter
-- it and inserting a row without a key never calls the function.
CREATE INDEX inbox_message_live_key_idx
    ON inbox_message (consumer_name, dispatcher_inbox_key(message_key_bytes, message_key), seq)
    WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND (message_key IS NOT NULL OR message_key_bytes IS NOT NULL);

-- Per-key claim of rows without a key (unordered among themselves), without walking keyed rows.
CREATE INDEX inbox_message_live_unkeyed_idx
    ON inbox_message (consumer_name, seq)
    WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND message_key IS NULL AND message_key_bytes IS NULL;

-- The live rows' seq index serves the statements that read a consumer's live rows in seq order, and not the per-key
-- claim, as the outbox's since V4: every statement on live rows implies its old predicate, so with statistics showing
-- few live rows the planner locked a per-key claim's runs by scanning it (all of the consumer's live entries, and
-- those of rows finished since the last vacuum, once per key) instead of finding them by ctid. The statements meant to
-- use it (the unordered claim, the backlog bound and gauges, the operators' backlog) say "AND seq > 0" (seq starts at
-- 1, so no row is left out).
DROP INDEX inbox_message_live_idx;
CREATE INDEX inbox_message_live_idx
    ON inbox_message (consumer_name, seq)
    WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND seq > 0;

-- seq is an identity column (GENERATED ALWAYS: no insert supplies it), so this constraint's index guarded nothing the
-- sequence does not; no statement needs it, and it made the claims walk the whole history: its order is the heap's,
-- so when live rows were a large part of the table the planner preferred walking it from the oldest row (completed
-- rows first, filtered one by one) to the consumer's live indexes, whose leading column is the consumer. Dropping it
-- also spares every stored record one index entry.
ALTER TABLE inbox_message DROP CONSTRAINT inbox_message_seq_key;
