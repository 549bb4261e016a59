#!/usr/bin/env bash
# PostgreSQL alone: how many messages a second the database sustains when it takes batch inserts AND has every row
# claimed and completed at the same time, with no service, no HTTP, no Kafka and no consumer on the machine.
# It bounds gatling-ingest's batch scenario, which runs with the relay: no ingest rate above what this prints can
# be sustained on the same machine with the relay keeping up.
#
# Inserts: 100-row INSERT transactions into Dispatcher's real outbox_message table (trigger and indexes included),
# 64 keys, 150-byte payloads, from 8 pgbench clients at a fixed rate (-R, transactions a second).
# Drain: 2 loops of the shared reference ceiling's statements (load-tests/reference/pg-ceiling.sql: claim 500 rows FOR
# UPDATE SKIP LOCKED under one lease token, complete them by primary key), here on outbox_message itself, sleeping
# 5 ms after a claim of fewer than 100 rows.
#
# Usage: ingest-drain-bound.sh "<pgbench/psql connection options>" <schema> [insert rates...]
#   e.g. ingest-drain-bound.sh "-h 127.0.0.1 -p 5432 -U postgres postgres" bound 200 250 300
# The schema must hold Dispatcher's migrated tables (a service started once with dispatcher.schema=<schema>, or
# the migrations under r2dbc-migrations applied with search_path=<schema>); its outbox_message is TRUNCATEd.
# Durability is the server's: run it on a server with fsync and synchronous_commit on, as the benchmarks do.
# PGBENCH_BIN names pgbench where it is not on the PATH (Debian: /usr/lib/postgresql/<version>/bin/pgbench).
set -euo pipefail
conn=$1; schema=$2; shift 2
rates=${*:-200 250 300}
PSQL="psql -X -q -At $conn"
PGBENCH="${PGBENCH_BIN:-pgbench} -n -M prepared"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

$PSQL <<SQL
CREATE OR REPLACE FUNCTION $schema.ceiling_claim_complete(p_batch int, p_owner text) RETURNS int LANGUAGE plpgsql AS \$\$
DECLARE ids uuid[]; tok uuid := gen_random_uuid(); n int;
BEGIN
  WITH c AS (SELECT id FROM $schema.outbox_message
              WHERE status IN ('PENDING', 'RETRY_SCHEDULED') AND visible_after <= now()
                AND (lease_until IS NULL OR lease_until < now()) AND seq > 0
              ORDER BY seq LIMIT p_batch FOR UPDATE SKIP LOCKED),
       u AS (UPDATE $schema.outbox_message o SET lease_owner = p_owner, lease_token = tok,
                    lease_until = now() + interval '30 seconds', attempts = attempts + 1
               FROM c WHERE o.id = c.id RETURNING o.id)
  SELECT array_agg(id) INTO ids FROM u;
  UPDATE $schema.outbox_message SET status = 'DELIVERED', delivered_at = now(), version = version + 1, lease_until = NULL
   WHERE id = ANY(ids) AND lease_token = tok AND status IN ('PENDING', 'RETRY_SCHEDULED');
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END \$\$;
SQL
cat > "$work/insert.sql" <<SQL
INSERT INTO $schema.outbox_message (id, topic, message_key, event_type, payload) SELECT gen_random_uuid(), 'bench', 'k' || (random()*63)::int, 'bench.event', convert_to(repeat('x', 150), 'UTF8') FROM generate_series(1, 100);
SQL
cat > "$work/claim.sql" <<SQL
SELECT $schema.ceiling_claim_complete(500, 'loop' || :client_id) AS n \gset
\if :n < 100
\sleep 5 ms
\endif
SQL
for rate in $rates; do
  $PSQL -c "TRUNCATE $schema.outbox_message" -c "VACUUM ANALYZE $schema.outbox_message" -c "CHECKPOINT"
  # index paths only: the table is analysed empty and fills while the loops run, and a plan made from those
  # statistics (a hash join over a sequential scan of the whole table) made the loops fall behind at a fifth of
  # the rate they reach with the index
  PGOPTIONS="-c enable_seqscan=off -c enable_bitmapscan=off" \
    $PGBENCH $conn -c 2 -j 1 -T 20 -f "$work/claim.sql" > "$work/claim.out" 2>&1 &
  $PGBENCH $conn -c 8 -j 2 -T 20 -R "$rate" -f "$work/insert.sql" > "$work/insert.out" 2>&1
  wait
  $PSQL -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE status = 'DELIVERED') FROM $schema.outbox_message" | {
    read -r total delivered
    echo "offered $((rate * 100)) rows/s: inserted $((total / 20))/s, delivered $((delivered / 20))/s, backlog grew $(((total - delivered) / 20))/s"
  }
done
$PSQL -c "DROP FUNCTION $schema.ceiling_claim_complete(int, text)"
