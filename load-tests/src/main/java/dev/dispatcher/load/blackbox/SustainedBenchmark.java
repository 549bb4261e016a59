package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.Sustained;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelaySustained;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code relay-sustained}: the service jar (its defaults but {@code --ordering}, {@code
 * dispatcher.retention.delivered=--retention-s} and {@code --service-args}; its heap {@value #DEFAULT_JVM_OPTIONS}
 * unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise) for {@code --minutes} at {@code --rate} rows a
 * second written by SQL ({@link SustainedWriters}), with retention deleting delivered rows as it does in production
 * (a pass a minute). Every minute it prints a line ({@link SustainedMinute}): what arrived on Kafka ({@link
 * SustainedArrivals}), the rows' own commit-to-delivered times, the outbox's size, dead tuples and deletes, the claim
 * statements' mean time and the service's connections ({@link OutboxVitals}), its heap ({@link HeapSampler}). After
 * the load it waits for every written id on Kafka (lost, duplicates) and prints the flatness verdict ({@link
 * Flatness}). RESULT {@code relay-sustained}.
 */
public final class SustainedBenchmark {

    /**
     * The service's heap unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise: bounded, so that the
     * old generation is collected within minutes and a leak shows as a growing heap after GC.
     */
    static final String DEFAULT_JVM_OPTIONS = "-Xmx512m";
    /** How long the consumer may take to see the last rows after the load. */
    static final Duration DRAIN_WAIT = Duration.ofMinutes(2);

    private SustainedBenchmark() {
    }

    public static RelaySustained run(BenchEnvironment env, Sustained s) throws Exception {
        String schema = env.serviceSchema("sustained");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        List<String> arguments = new ArrayList<>(List.of(
                "--dispatcher.retention.delivered=" + s.retention().toSeconds() + "s",
                "--dispatcher.worker-id=" + schema));
        arguments.addAll(s.serviceArgs());
        List<String> jvmOptions = Services.jvmOptions(DEFAULT_JVM_OPTIONS);
        System.out.printf(Locale.ROOT, "relay-sustained: %d minute(s) at %d rows/s, %d writers x %d rows a"
                + " transaction, keys %s, retention of delivered rows %d s (a pass a minute)%n", s.minutes(), s.rate(),
                s.writers(), s.batchRows(), s.keys().text(), s.retention().toSeconds());
        SustainedWriters writers = new SustainedWriters(env, schema, topic, s);
        List<SustainedMinute> minutes = new ArrayList<>();
        double offered;
        long lost;
        long duplicates;
        double p99;
        long deletedBefore;
        try (OutboxVitals vitals = OutboxVitals.open(env, schema, "dispatcher-" + schema);
             ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                     jvmOptions, schema, ServiceArguments.relay(s.ordering(), arguments), "sustained-service");
             SustainedArrivals arrivals = new SustainedArrivals(env.kafka().bootstrapServers(), topic, 6, writers);
             HeapSampler heap = new HeapSampler(service.client())) {
            OutboxVitals.Reading previous = vitals.read();
            deletedBefore = previous.deletedRows();
            heap.take();
            long start = writers.start();
            arrivals.start(start);
            for (int m = 1; m <= s.minutes(); m++) {
                long due = start + Duration.ofMinutes(m).toNanos();
                while (System.nanoTime() < due && writers.failure() == null) {
                    Thread.sleep(Math.min(200, Math.max(1, (due - System.nanoTime()) / 1_000_000))); // main thread
                }
                if (writers.failure() != null) {
                    writers.awaitEnd(); // throws the writer's failure
                }
                OutboxVitals.Reading now = vitals.read();
                OutboxVitals.RowTimes rows = vitals.rowTimes(previous.at(), now.at());
                SustainedArrivals.Minute arrived = arrivals.minute(m);
                HeapSampler.Heap h = heap.take();
                SustainedMinute minute = new SustainedMinute(m, arrived.arrived(), arrived.p99Ms(), rows.delivered(),
                        rows.p99Ms(), now.tableBytes(), now.indexBytes(), now.deadTuples(), now.liveTuples(),
                        now.deletedRows() - previous.deletedRows(), now.claimMeanMsSince(previous), h.afterGcBytes(),
                        h.troughBytes(), now.connections());
                System.out.println(minute.line());
                minutes.add(minute);
                previous = now;
            }
            writers.awaitEnd();
            offered = writers.committedRows() / ((System.nanoTime() - start) / 1e9);
            boolean all = arrivals.awaitAll(DRAIN_WAIT);
            lost = arrivals.lost();
            duplicates = arrivals.duplicates();
            p99 = arrivals.p99MsFrom(s.minutes() > 1 ? 2 : 1); // minute 1 is the service's warm-up
            System.out.printf(Locale.ROOT, "relay-sustained: %d rows written (%.1f/s), %d distinct on Kafka (%s),"
                    + " lost %d, duplicates %d, untimed %d, foreign records %d%n", writers.committedRows(), offered,
                    arrivals.distinct(), all ? "all confirmed" : "NOT all within " + DRAIN_WAIT, lost, duplicates,
                    arrivals.untimed(), arrivals.foreign());
        }
        long deleted = deletedSince(env, schema, deletedBefore);
        System.out.printf(Locale.ROOT, "relay-sustained: %d rows deleted by retention over the run (n_tup_del, read"
                + " after the service stopped)%n", deleted);
        Flatness.Verdict verdict = Flatness.judge(minutes);
        System.out.println("relay-sustained: " + verdict.text());
        SustainedMinute reference = minutes.get(verdict.referenceMinute() - 1);
        SustainedMinute last = minutes.getLast();
        double delivered = minutes.stream().mapToLong(SustainedMinute::arrived).sum() / (s.minutes() * 60.0);
        return new RelaySustained(Common.of(env.fsync(), s.ordering().text(), s.keys().text(), s.payloadBytes(), 0,
                0), s.minutes(), Round.one(offered), Round.one(delivered), Round.one(p99), s.retention().toSeconds(),
                deleted, verdict.referenceMinute(),
                reference.tableBytes(), last.tableBytes(), reference.indexBytes(), last.indexBytes(),
                round3(reference.claimMeanMs()), round3(last.claimMeanMs()), reference.heapAfterGcBytes(),
                last.heapAfterGcBytes(), last.heapTroughBytes(), lost, duplicates, verdict.flat());
    }

    /**
     * Rows deleted from the outbox since {@code before} ({@code n_tup_del}), read after the service stopped: a backend
     * reports its counts to the statistics when it has been idle for a while (up to 10 s later) or when it exits, so a
     * minute's reading can miss a retention pass that ran seconds before it; by now the service's connections have
     * closed, and the reading is repeated for up to 10 s while it has not moved.
     */
    private static long deletedSince(BenchEnvironment env, String schema, long before) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        try (OutboxVitals vitals = OutboxVitals.open(env, schema, "dispatcher-" + schema)) {
            long deleted = vitals.read().deletedRows() - before;
            while (deleted == 0 && System.nanoTime() < deadline) {
                Thread.sleep(250); // the harness's main thread: waiting is its job
                deleted = vitals.read().deletedRows() - before;
            }
            return deleted;
        }
    }

    private static Double round3(Double ms) {
        return ms == null ? null : Math.round(ms * 1000) / 1000.0;
    }
}
