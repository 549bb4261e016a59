#!/usr/bin/env bash
# Builds the service jar's AOT cache (JDK 25: JEP 483 classes loaded and linked ahead of time, JEP 515 the JIT's
# method profiles), trained on the service's real work, HTTP ingest, the relay's drain and the inbox webhook consumer,
# so a freshly started service is fast from its first second on each.
#   1. extracts dispatcher-app's exec jar (Spring Boot's `-Djarmode=tools extract`: the AOT cache needs plain jars on
#      the class path, not jars nested in a jar) into dispatcher-app/target/aot/app/ (dispatcher-app.jar and lib/);
#   2. the training run: the ingest benchmark (gatling-ingest, short) starts that jar with -XX:AOTCacheOutput and one
#      webhook inbox consumer (as blackbox-inbox's, POSTing to a receiver in the harness that takes 2 ms a call),
#      sends it singles and batches over HTTP (its warm-up, then the single, batch and replay scenarios, the relay
#      publishing all along), then drains standing backlogs of 100,000 rows through the relay (--drain-rows, up to
#      TRAINING_ROUNDS rounds), then sends TRAINING_INBOX_RECORDS (100,000) records through the inbox consumer
#      (--inbox-records: Kafka intake, claims, webhook calls, completion; in rounds of 20,000, each awaited until the
#      receiver answered every id), and stops it with SIGTERM; the JVM writes dispatcher-app/target/aot/dispatcher.aot
#      as it exits (a minute or two).
# Run the service with it (same JDK, the same jar files at the same paths, or the JVM ignores the cache with a
# warning):
#   java -XX:AOTCache=dispatcher-app/target/aot/dispatcher.aot -jar dispatcher-app/target/aot/app/dispatcher-app.jar
# Usage: load-tests/aot/train.sh [harness options: --pg-url ... --pg-user ... --bootstrap ...; none: the harness's
#        embedded PostgreSQL and Kafka]. Needs the modules installed (README, Benchmarks) and JAVA_HOME on JDK 25+.
set -euo pipefail
cd "$(dirname "$0")/../.."
AOT=dispatcher-app/target/aot
JAR="$(ls dispatcher-app/target/dispatcher-app-*-exec.jar | head -1)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
rm -rf "$AOT"
"$JAVA" -Djarmode=tools -jar "$JAR" extract --destination "$AOT/app" --application-filename dispatcher-app.jar
MAVEN_OPTS="${MAVEN_OPTS:-} -Ddispatcher.service.jar=$PWD/$AOT/app/dispatcher-app.jar \
  -Ddispatcher.bench.warmup-rounds=${TRAINING_ROUNDS:-3}" \
  ./mvnw -B -q -pl load-tests exec:java@ingest-benchmark -Dexec.args="--warmup 60 --ceiling 1 --duration 10 \
  --drain-rows 100000 --inbox-records ${TRAINING_INBOX_RECORDS:-100000} \
  --service-jvm-options -XX:AOTCacheOutput=$PWD/$AOT/dispatcher.aot $*"
ls -l "$AOT/dispatcher.aot"
