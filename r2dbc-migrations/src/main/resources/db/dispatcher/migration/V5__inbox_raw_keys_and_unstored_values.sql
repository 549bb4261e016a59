-- Dispatcher schema, version 5: inbox records that cannot be stored as received.
--
-- A Kafka key is bytes. A key that is valid UTF-8 without NUL stays in message_key (text), as before. Any other key
-- (Confluent's wire format starts every key with 0x00 and a schema id; PostgreSQL text rejects NUL and invalid
-- UTF-8) is kept losslessly in message_key_bytes, with message_key null, and the record is handled as usual. So the
-- key of a keyed row is exactly coalesce(message_key_bytes, convert_to(message_key, 'UTF8')): its identity for
-- per-key ordering, and what an operator sees as the raw key.
--
-- A record whose value is over its consumer's limit (dispatcher.inbox.consumers[i].max-payload-size), or that the
-- database refused even after its other fields were stored one by one, is stored DEAD_LETTERED without its value:
-- payload is null then, and such a row is never replayed (InboxSql.REPLAY and REPLAY_DEAD_LETTERS skip it; the
-- operator re-publishes it from its topic, partition and offset).
--
-- All three changes are catalog-only: a nullable column without a default, a dropped NOT NULL, and CHECK constraints
-- added NOT VALID (no existing row can break them: the column is new and every payload was NOT NULL), so nothing
-- scans or rewrites inbox_message. They hold for every row written from now on.
ALTER TABLE inbox_message ADD COLUMN message_key_bytes bytea;

ALTER TABLE inbox_message ALTER COLUMN payload DROP NOT NULL;

ALTER TABLE inbox_message
    ADD CONSTRAINT inbox_message_key_form_check CHECK (message_key IS NULL OR message_key_bytes IS NULL) NOT VALID;

ALTER TABLE inbox_message
    ADD CONSTRAINT inbox_message_payload_check CHECK (payload IS NOT NULL OR status = 'DEAD_LETTERED') NOT VALID;
