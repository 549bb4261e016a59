-- Dispatcher schema, version 9: operators list the outbox's dead letters in seq order without naming a topic.
--
-- GET /v1/messages?status=DEAD_LETTERED (the console's dead-letter view) pages through dead letters in seq order.
-- outbox_message_dead_letter_idx (topic, seq) serves it only with a topic; without one the planner walked the seq
-- index over the whole history and filtered it (measured on 200,000 rows of which 1,000 dead letters: 152,450 rows
-- read and 562 ms for a page of 50, OperatorReadPlansIT), or read every dead letter and sorted them. This index holds
-- the dead letters alone in seq order, so a page reads about its own rows.
--
-- It costs ingest nothing (rows are written PENDING and never enter it) and a dead-lettering transition one entry.
-- Building it reads the table once under a lock that blocks writes (inserts, claims and transitions wait; reads do
-- not); it is as small as the dead letters, but the scan reads the delivered history too: run it when the outbox is
-- quiet if that history is large.
CREATE INDEX outbox_message_dead_letter_seq_idx
    ON outbox_message (seq)
    WHERE status = 'DEAD_LETTERED';
