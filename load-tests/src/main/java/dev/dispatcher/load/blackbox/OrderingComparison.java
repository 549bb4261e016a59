package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBox;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox --compare-ordering}: the unit of order {@code (topic, key)} ({@code per-key}) against the key alone
 * ({@code per-key-across-topics}) in one run on the same servers (issue 49). Beside the run's first service, which
 * runs {@code per-key} on its schema, a second service jar starts under {@code per-key-across-topics} on a schema of
 * its own and is warmed up as the first was ({@link BlackBoxDrainBenchmark#warmUp}). Then {@code --pairs} pairs: in
 * each, both services drain N rows each, one after the other, the first service first in odd pairs and second in even
 * ones, so neither always drains first and the machine's drift over the run reaches both. Each drain goes to a topic
 * of its own, is seeded while its service is paused on a table vacuumed just before, and is timed by the rows' own
 * times; the idle service stays paused. The ratio of a pair is the per-key rate over the across-topics one; the
 * figures are the medians. Every drain's rows are counted on Kafka for lost and duplicates.
 *
 * <p>Diagnosis switch: {@code -Ddispatcher.bench.compare-against=per-key} starts the second service under {@code
 * per-key} as well, so the run compares two like services, the harness's own asymmetry (which service, which schema);
 * such figures are a control, not results.
 */
final class OrderingComparison {

    private OrderingComparison() {
    }

    record Result(RelayDrain.Orderings figures, long lost, long duplicates) {
    }

    /** One service of the comparison: its client, its schema and its name in the console. */
    private record Side(ServiceClient client, String schema, String name) {
    }

    /** One timed drain's rate and its lost and duplicate rows. */
    private record Drained(double rate, long lost, long duplicates) {
    }

    /**
     * Runs the pairs with {@code perKey} (the run's first service, running, on {@code perKeySchema}) and a second
     * service jar it starts and stops itself.
     */
    static Result run(BenchEnvironment env, BlackBox b, ServiceClient perKey, String perKeySchema,
            List<String> jvmOptions) throws Exception {
        String schema = env.serviceSchema("across");
        BlackBoxDrainBenchmark.Topics topics = new BlackBoxDrainBenchmark.Topics(schema, "bench-" + schema,
                "bench-" + schema + "-warm", null, null);
        String keys = b.backlog().keys().sqlExpression();
        int payloadBytes = b.backlog().payloadBytes();
        Ordering against = against();
        String name = against == Ordering.PER_KEY_ACROSS_TOPICS ? against.text() : "control " + against.text();
        try (ServiceProcess across = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                jvmOptions, schema, ServiceArguments.relay(against, b.serviceArgs()),
                "blackbox-across-topics-service")) {
            ServiceClient client = across.client();
            System.out.println("orderings: warming up the " + name + " service");
            BlackBoxDrainBenchmark.warmUp(env, List.of(client), JitWarmUp.service(client), topics, keys, payloadBytes,
                    b.warmup());
            return pairs(env, b, new Side(perKey, perKeySchema, Ordering.PER_KEY.text()),
                    new Side(client, schema, name));
        }
    }

    /** The second service's ordering: {@code -Ddispatcher.bench.compare-against}, per-key-across-topics if unset. */
    private static Ordering against() {
        String value = System.getProperty("dispatcher.bench.compare-against",
                Ordering.PER_KEY_ACROSS_TOPICS.text());
        for (Ordering ordering : Ordering.values()) {
            if (ordering.text().equals(value)) {
                return ordering;
            }
        }
        throw new IllegalArgumentException("-Ddispatcher.bench.compare-against must be per-key-across-topics,"
                + " per-key or none, but was '" + value + "'");
    }

    private static Result pairs(BenchEnvironment env, BlackBox b, Side perKey, Side across) throws Exception {
        perKey.client().pause();
        across.client().pause();
        List<Double> perKeyRates = new ArrayList<>();
        List<Double> acrossRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        long lost = 0;
        long duplicates = 0;
        for (int pair = 1; pair <= b.pairs(); pair++) {
            List<Side> turn = pair % 2 == 1 ? List.of(perKey, across) : List.of(across, perKey);
            double[] rates = new double[2];
            for (Side side : turn) {
                Drained drained = drain(env, b, side, pair);
                rates[side == perKey ? 0 : 1] = drained.rate();
                lost += drained.lost();
                duplicates += drained.duplicates();
            }
            perKeyRates.add(rates[0]);
            acrossRates.add(rates[1]);
            ratios.add(rates[0] / rates[1]);
            System.out.printf(Locale.ROOT, "orderings: pair %d (%s first): per-key %.0f msgs/s, %s %.0f msgs/s:"
                    + " ratio %.2f%n", pair, turn.getFirst().name(), rates[0], across.name(), rates[1],
                    rates[0] / rates[1]);
        }
        perKey.client().resume();
        RelayDrain.Orderings figures = new RelayDrain.Orderings(Round.one(FormatsDrainBenchmark.median(perKeyRates)),
                Round.one(FormatsDrainBenchmark.median(acrossRates)), Round.two(FormatsDrainBenchmark.median(ratios)),
                perKeyRates.stream().map(Round::one).toList(), acrossRates.stream().map(Round::one).toList(),
                ratios.stream().map(Round::two).toList());
        System.out.printf(Locale.ROOT, "orderings: median ratio %.2f over %d pairs %s; per-key median %.0f msgs/s,"
                + " %s median %.0f msgs/s%n", figures.ratioToAcrossTopics(), b.pairs(),
                figures.pairRatiosToAcrossTopics(), figures.perKeyPairsMsgsPerS(), across.name(),
                figures.acrossTopicsMsgsPerS());
        return new Result(figures, lost, duplicates);
    }

    /**
     * N rows to a topic of their own (6 partitions, created), seeded on a freshly vacuumed table while {@code side}'s
     * relay is paused, then resumed until the harness's consumer has seen them all, and paused again.
     */
    private static Drained drain(BenchEnvironment env, BlackBox b, Side side, int pair) throws Exception {
        String topic = "bench-" + side.schema() + "-pair" + pair;
        String phase = "orderings " + side.name() + " pair " + pair;
        env.createTopic(topic, 6);
        OutboxRows outbox = new OutboxRows(env);
        outbox.vacuum(side.schema());
        int n = b.backlog().n();
        try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            outbox.insert(side.schema(), topic, b.backlog().keys().sqlExpression(), b.backlog().payloadBytes(), n);
            long start = System.nanoTime();
            side.client().resume();
            boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10), Progress.since(phase, start),
                    side.client()::backlog);
            side.client().pause();
            OutboxRows.Deliveries deliveries = outbox.deliveries(side.schema(), topic);
            System.out.println(phase + ": delivered per second from the first claim: " + deliveries.eachSecond());
            System.out.printf(Locale.ROOT, "%s: %.0f msgs/s first claim to last delivery (%s UTC), %s%n", phase,
                    deliveries.rate(), deliveries.window(), all ? "all confirmed" : "NOT all confirmed");
            return new Drained(deliveries.rate(), confirmed.lost(outbox.ids(side.schema(), topic)),
                    confirmed.duplicates());
        }
    }
}
