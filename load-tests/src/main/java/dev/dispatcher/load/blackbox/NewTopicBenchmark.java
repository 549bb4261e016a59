package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxNewTopic;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayNewTopic;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * {@code blackbox-new-topic}: the service jar (its defaults but {@code --ordering}) on a broker that creates topics
 * on first use (the harness's own, {@code auto.create.topics.enable=true}), delivering rows written for a topic that
 * does not exist yet. After {@code --warmup} rows drained from an existing topic, untimed, each round writes {@code
 * --n} rows for a new topic in one transaction while the relay runs, as an application would, and waits until every
 * one is delivered (or dead-lettered). A round's figure is the seconds from the rows' {@code created_at} to the last
 * {@code delivered_at} (the database's clock); the same rows then go to a topic created beforehand, with as many
 * partitions, as the round's reference on the same machine at the same moment. Lost and duplicate rows are counted
 * by consuming each topic. RESULT {@code relay-new-topic}; issue 49's target: 2,000 rows delivered within 10 s of
 * being written, 0 lost.
 */
public final class NewTopicBenchmark {

    /** How long a round may take before it is reported unfinished. */
    static final Duration ROUND_TIMEOUT = Duration.ofMinutes(2);

    private NewTopicBenchmark() {
    }

    public static RelayNewTopic run(BenchEnvironment env, BlackBoxNewTopic b) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        String schema = env.serviceSchema("newtopic");
        String keys = b.backlog().keys().sqlExpression();
        int n = b.backlog().n();
        int payloadBytes = b.backlog().payloadBytes();
        List<Double> rounds = new ArrayList<>();
        List<Double> referenceRounds = new ArrayList<>();
        long deadLettered = 0;
        long lost = 0;
        long duplicates = 0;
        try (ServiceProcess service = Services.startJar(env, schema,
                ServiceArguments.relay(b.ordering(), b.serviceArgs()), "blackbox-new-topic-service")) {
            if (b.warmup() > 0) {
                String warm = "bench-" + schema + "-warm";
                env.createTopic(warm, 6);
                outbox.write(schema, warm, keys, payloadBytes, b.warmup());
                outbox.awaitNoBacklog(schema, Duration.ofMillis(100), Duration.ofMinutes(10), Progress.of("warm-up"));
                System.out.printf(Locale.ROOT, "warm-up: %d rows drained from an existing topic (not reported)%n",
                        b.warmup());
            }
            for (int round = 1; round <= b.rounds(); round++) {
                String topic = "bench-" + schema + "-new-" + round;
                env.deleteAtEnd(topic);
                Drained fresh = drain(env, outbox, schema, topic, keys, payloadBytes, n);
                int partitions = partitions(env, topic);
                String existing = "bench-" + schema + "-existing-" + round;
                env.createTopic(existing, partitions);
                Drained reference = drain(env, outbox, schema, existing, keys, payloadBytes, n);
                System.out.printf(Locale.ROOT, "round %d: %d rows for new topic %s (%d partitions): %s; the same for"
                        + " an existing topic: %s%n", round, n, topic, partitions, fresh, reference);
                rounds.add(Round.two(fresh.seconds()));
                referenceRounds.add(Round.two(reference.seconds()));
                deadLettered += fresh.deadLettered() + reference.deadLettered();
                lost += fresh.lost() + reference.lost();
                duplicates += fresh.duplicates() + reference.duplicates();
            }
        }
        double slowest = rounds.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double slowestReference = referenceRounds.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        System.out.printf(Locale.ROOT, "blackbox-new-topic: %d rows a new topic, slowest of %d rounds %.2f s from"
                + " written to all delivered (rounds: %s); an existing topic's, %.2f s (%s)%n", n, b.rounds(), slowest,
                rounds, slowestReference, referenceRounds);
        return new RelayNewTopic(Common.of(env.fsync(), b.ordering().text(), b.backlog().keys().text(), payloadBytes,
                b.warmup(), b.warmup() > 0 ? 1 : 0), n, b.rounds(), Round.two(slowest), rounds,
                Round.two(slowestReference), referenceRounds, deadLettered, lost, duplicates);
    }

    /**
     * One round's rows of one topic: the seconds from written to the last delivered ({@link #ROUND_TIMEOUT} when not
     * all were), and what the topic holds of them.
     */
    record Drained(double seconds, long delivered, long deadLettered, long lost, long duplicates) {

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d delivered, %d dead-lettered, the last %.2f s after they were"
                    + " written; on Kafka %d lost, %d duplicates", delivered, deadLettered, seconds, lost, duplicates);
        }
    }

    /** Writes {@code n} rows of {@code topic} while the relay runs and waits until each is delivered or dead. */
    private static Drained drain(BenchEnvironment env, OutboxRows outbox, String schema, String topic, String keys,
            int payloadBytes, int n) throws Exception {
        outbox.write(schema, topic, keys, payloadBytes, n);
        OutboxRows.Progressed done = awaitDone(outbox, schema, topic, n);
        Set<String> ids = outbox.ids(schema, topic);
        try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic,
                partitions(env, topic), Confirmations.Fetch.THROUGHPUT)) {
            confirmed.awaitAll(ids, Duration.ofSeconds(30));
            return new Drained(done.delivered() == n ? done.writtenToLastDeliveryS() : ROUND_TIMEOUT.toSeconds(),
                    done.delivered(), done.deadLettered(), confirmed.lost(ids), confirmed.duplicates());
        }
    }

    /** Waits until each of {@code topic}'s {@code n} rows is delivered or dead-lettered, or the round times out. */
    private static OutboxRows.Progressed awaitDone(OutboxRows outbox, String schema, String topic, int n)
            throws Exception {
        long deadline = System.nanoTime() + ROUND_TIMEOUT.toNanos();
        Progress progress = Progress.of("new topic " + topic);
        OutboxRows.Progressed done = outbox.progressed(schema, topic);
        while (done.delivered() + done.deadLettered() < n && System.nanoTime() < deadline) {
            OutboxRows.Progressed now = done;
            progress.maybePrint(() -> now.delivered() + " of " + n + " delivered");
            Thread.sleep(50); // the harness's main thread: waiting is its job
            done = outbox.progressed(schema, topic);
        }
        return done;
    }

    /** How many partitions the broker gave {@code topic} when it created it. */
    private static int partitions(BenchEnvironment env, String topic) throws Exception {
        try (Admin admin = Admin.create(env.kafka().clientProperties())) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().size();
        }
    }
}
