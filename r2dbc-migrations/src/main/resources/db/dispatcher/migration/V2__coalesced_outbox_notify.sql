-- Dispatcher schema, version 2: wake-ups that no longer serialise writers' commits.
--
-- Version 1 sent one NOTIFY per inserting statement. PostgreSQL makes every transaction that sent a NOTIFY take
-- one database-wide lock at commit and hold it until its commit record is flushed, so notifying transactions
-- commit one fsync at a time: measured with pgbench (16 clients, one-row inserts, fsync on), 1,593 commits/s with
-- the version 1 trigger against 3,091 without it. Every application transaction that writes the outbox paid that.
--
-- Now the notification is sent at commit time by a deferred constraint trigger, once per transaction, and only by
-- a transaction that can take this schema's notifier lock without waiting. That lock is held from the moment the
-- transaction starts committing until its commit ends, so a transaction that finds it taken is committing
-- alongside another one whose notification is about to arrive, and skips its own: concurrent writers no longer
-- queue behind each other's flushes. A relay woken by that notification may claim before the skipping
-- transaction's row is visible; the relay claims again shortly after any claim that found rows, and polls
-- (dispatcher.relay.poll-interval) as the fallback, so such a row is late by at most that, never lost.
-- The lock id is hashtextextended('dispatcher_notify:' || schema, 7352): seed 7352, so it never collides with the
-- writers' key locks (seed 7351).

CREATE OR REPLACE FUNCTION dispatcher_notify_outbox() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    -- Once per transaction and schema: the first deferred row event decides, the others return at once. The
    -- transaction-local setting is named after the schema (hashed: a setting name allows only some characters), so
    -- one transaction writing two Dispatcher schemas wakes the relays of both.
    IF coalesce(current_setting('dispatcher.notify_' || md5(TG_TABLE_SCHEMA), true), '') <> 'on' THEN
        PERFORM set_config('dispatcher.notify_' || md5(TG_TABLE_SCHEMA), 'on', true);
        IF pg_try_advisory_xact_lock(hashtextextended('dispatcher_notify:' || TG_TABLE_SCHEMA, 7352)) THEN
            PERFORM pg_notify('dispatcher_outbox', TG_TABLE_SCHEMA);
        END IF;
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER outbox_message_notify ON outbox_message;

-- Constraint triggers are row-level; deferred, they run when the transaction commits (before PostgreSQL queues
-- its notifications), so the notifier lock is held only while committing.
CREATE CONSTRAINT TRIGGER outbox_message_notify
    AFTER INSERT ON outbox_message
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION dispatcher_notify_outbox();
