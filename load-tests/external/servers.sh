#!/usr/bin/env bash
# Starts (or stops) the external servers the README's "Current figures" are measured on, on loopback only:
#   - PostgreSQL 15 (Debian's postgresql-15), durable (fsync and synchronous_commit on), shared_buffers 1GB,
#     max_wal_size 4GB, pg_stat_statements, port 15432, user postgres (trust on loopback);
#   - one Kafka KRaft broker (combined broker and controller) from the kafka_2.13 jars the test kit already depends
#     on (Maven Central), port 19092, auto.create.topics.enable=false as production brokers run.
# Usage: load-tests/external/servers.sh start|stop|status   (DIR=/tmp/dispatcher-servers by default)
#        start2|stop2: a second PostgreSQL 15 with the same settings on port 15433 (PG2_PORT), data in $DIR/pg2/pg
#        (the blackbox-sources benchmark's second source); PG2=1 makes start|stop|status include it
# Benchmarks then take: --pg-url jdbc:postgresql://127.0.0.1:15432/postgres --pg-user postgres --bootstrap 127.0.0.1:19092
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR="${DIR:-/tmp/dispatcher-servers}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_PORT="${PG_PORT:-15432}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
CONTROLLER_PORT="${CONTROLLER_PORT:-19093}"

pg_run() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }

start_pg() {
  if ! [ -x "$PG_BIN/postgres" ]; then
    echo "installing Debian's postgresql-15" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-contrib-15 >/dev/null
  fi
  mkdir -p "$DIR/pg"
  [ "$(id -u)" = 0 ] && chown postgres "$DIR" "$DIR/pg"
  if ! [ -f "$DIR/pg/data/PG_VERSION" ]; then
    pg_run "$PG_BIN/initdb -D $DIR/pg/data -U postgres --auth=trust -E UTF8 >/dev/null"
    cat >> "$DIR/pg/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$DIR/pg'
max_connections = 300
shared_buffers = 1GB
max_wal_size = 4GB
fsync = on
synchronous_commit = on
shared_preload_libraries = 'pg_stat_statements'
CONF
  fi
  pg_run "$PG_BIN/pg_ctl -D $DIR/pg/data -l $DIR/pg/log -w start >/dev/null"
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' postgres
  echo "PostgreSQL 15 on 127.0.0.1:$PG_PORT (durable), log $DIR/pg/log"
}

start_kafka() {
  mkdir -p "$DIR/kafka"
  if ! [ -s "$DIR/kafka/classpath" ]; then
    ./mvnw -B -q -pl dispatcher-test-kit dependency:build-classpath -Dmdep.includeScope=compile \
      -Dmdep.outputFile="$DIR/kafka/classpath" >/dev/null
  fi
  cat > "$DIR/kafka/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DIR/kafka/logs
auto.create.topics.enable=false
num.partitions=6
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
delete.topic.enable=true
CONF
  local cp; cp="$(cat "$DIR/kafka/classpath")"
  if ! [ -f "$DIR/kafka/logs/meta.properties" ]; then
    java -cp "$cp" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" \
      -c "$DIR/kafka/server.properties" --standalone >/dev/null 2>&1 \
      || java -cp "$cp" kafka.tools.StorageTool format -t "$(java -cp "$cp" kafka.tools.StorageTool random-uuid)" \
           -c "$DIR/kafka/server.properties" >/dev/null
  fi
  nohup java -Xmx1g -Xms1g -cp "$cp" kafka.Kafka "$DIR/kafka/server.properties" > "$DIR/kafka/log" 2>&1 &
  echo $! > "$DIR/kafka/pid"
  for _ in $(seq 1 60); do
    if (exec 3<>/dev/tcp/127.0.0.1/$KAFKA_PORT) 2>/dev/null; then
      echo "Kafka broker on 127.0.0.1:$KAFKA_PORT (auto-create off), log $DIR/kafka/log"; return 0
    fi
    sleep 1
  done
  echo "Kafka did not start; see $DIR/kafka/log" >&2; return 1
}

stop_all() {
  if [ -f "$DIR/kafka/pid" ]; then kill "$(cat "$DIR/kafka/pid")" 2>/dev/null || true; rm -f "$DIR/kafka/pid"; fi
  if [ -f "$DIR/pg/data/postmaster.pid" ]; then pg_run "$PG_BIN/pg_ctl -D $DIR/pg/data -m fast stop >/dev/null" || true; fi
}

second_pg() { ( DIR="$DIR/pg2"; PG_PORT="${PG2_PORT:-15433}"; "$@" ); }
stop_pg2() { if [ -f "$DIR/pg/data/postmaster.pid" ]; then pg_run "$PG_BIN/pg_ctl -D $DIR/pg/data -m fast stop >/dev/null" || true; fi; }

case "${1:-}" in
  start) : "${JAVA_HOME:?set JAVA_HOME to a JDK 21+}"; export PATH="$JAVA_HOME/bin:$PATH"; start_pg; start_kafka
         if [ "${PG2:-0}" = 1 ]; then second_pg start_pg; fi ;;
  stop) stop_all; if [ "${PG2:-0}" = 1 ]; then second_pg stop_pg2; fi ;;
  start2) second_pg start_pg ;;
  stop2) second_pg stop_pg2 ;;
  status) "$PG_BIN/pg_isready" -h 127.0.0.1 -p "$PG_PORT" || true
          if [ "${PG2:-0}" = 1 ]; then "$PG_BIN/pg_isready" -h 127.0.0.1 -p "${PG2_PORT:-15433}" || true; fi
          if [ -f "$DIR/kafka/pid" ] && kill -0 "$(cat "$DIR/kafka/pid")" 2>/dev/null; then echo "kafka running"; else echo "kafka stopped"; fi ;;
  *) echo "usage: $0 start|stop|status|start2|stop2" >&2; exit 2 ;;
esac
