package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxFormats;
import dev.dispatcher.load.reference.PgCeiling;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code blackbox-formats}: what a record format costs, each format against {@code plain} in the same run. One service
 * jar per format ({@code --dispatcher.relay.format}, a CloudEvents source for the CloudEvents ones), each on a schema
 * of its own, all started and warmed up ({@link BlackBoxDrainBenchmark#warmUp}) before any drain is timed; then
 * {@code --rounds} rounds in which every format drains N rows seeded while its relay is paused, as {@code blackbox}
 * does, the formats' order turning by one each round so that none always drains first. The services not draining are
 * idle (paused or without rows). Per format: the median of its rounds' rates (by the rows' own times), the median of
 * its per-round ratios to {@code plain}'s drain of the same round, and the service JVM's CPU time per message over its
 * drains. The seeded payloads are JSON strings ({@link OutboxRows#insert}), so the structured format carries them as
 * {@code data}. RESULT {@code relay-drain}: {@code msgs_per_s} is {@code plain}'s, {@code formats} each format's.
 */
public final class FormatsDrainBenchmark {

    /** Every CloudEvents service's {@code dispatcher.relay.cloudevents.source}. */
    static final String SOURCE = "urn:dispatcher:bench";

    private FormatsDrainBenchmark() {
    }

    /** One format's service, its schema and what its timed drains measured (the service's CPU time of each). */
    private record Format(String name, String schema, ServiceProcess service, List<Double> rates,
            List<Double> ratios, List<Long> cpuNanos) {
    }

    public static RelayDrain run(BenchEnvironment env, BlackBoxFormats b) throws Exception {
        int n = b.backlog().n();
        String keys = b.backlog().keys().sqlExpression();
        int payloadBytes = b.backlog().payloadBytes();
        OutboxRows outbox = new OutboxRows(env);
        double ceilingBefore = PgCeiling.measure(env, env.schema("ceiling"), n);
        List<Format> formats = new ArrayList<>();
        long lost = 0;
        long duplicates = 0;
        JitWarmUp.Result warm = JitWarmUp.Result.NONE;
        try {
            for (String name : b.formats()) {
                String schema = env.serviceSchema("formats");
                BlackBoxDrainBenchmark.Topics topics = new BlackBoxDrainBenchmark.Topics(schema, "bench-" + schema,
                        "bench-" + schema + "-warm", null, null);
                List<String> args = new ArrayList<>(List.of("--dispatcher.relay.format=" + name,
                        "--dispatcher.relay.cloudevents.source=" + SOURCE));
                args.addAll(b.serviceArgs());
                ServiceProcess service = Services.startJar(env, topics.schema(),
                        ServiceArguments.relay(b.ordering(), args), "formats-" + name);
                formats.add(new Format(name, topics.schema(), service, new ArrayList<>(), new ArrayList<>(),
                        new ArrayList<>()));
                ServiceClient client = service.client();
                System.out.printf(Locale.ROOT, "formats: warming up the %s service%n", name);
                JitWarmUp.Result one = BlackBoxDrainBenchmark.warmUp(env, List.of(client), JitWarmUp.service(client),
                        topics, keys, payloadBytes, b.warmup());
                warm = new JitWarmUp.Result(warm.rows() + one.rows(), warm.rounds() + one.rounds()); // all services'
                client.pause();
            }
            for (int round = 0; round < b.rounds(); round++) {
                Map<String, Double> rates = new LinkedHashMap<>();
                for (int i = 0; i < formats.size(); i++) {
                    Format f = formats.get((i + round) % formats.size());
                    Drained drained = drain(env, outbox, f, round + 1, keys, payloadBytes, n);
                    rates.put(f.name(), drained.rate());
                    f.rates().add(drained.rate());
                    f.cpuNanos().add(drained.cpuNanos());
                    lost += drained.lost();
                    duplicates += drained.duplicates();
                }
                for (Format f : formats) {
                    f.ratios().add(rates.get(f.name()) / rates.get(BlackBoxFormats.PLAIN));
                }
                System.out.println("formats: round " + (round + 1) + ": " + rates);
            }
        } finally {
            for (Format f : formats) {
                f.service().close();
            }
        }
        PgCeiling.Bracket ceiling = new PgCeiling.Bracket(ceilingBefore,
                PgCeiling.measure(env, env.schema("ceiling"), n));
        Map<String, RelayDrain.FormatRate> figures = new LinkedHashMap<>();
        for (Format f : formats) {
            double cpuUs = f.cpuNanos().stream().mapToLong(Long::longValue).sum() / 1e3 / ((long) n * b.rounds());
            figures.put(f.name(), new RelayDrain.FormatRate(Round.one(median(f.rates())),
                    Round.two(median(f.ratios())), Round.one(cpuUs), f.rates().stream().map(Round::one).toList()));
            System.out.printf(Locale.ROOT, "formats: %s median %.0f msgs/s, %.2f of plain, service CPU %.1f us a"
                    + " message, rounds %s%n", f.name(), median(f.rates()), median(f.ratios()), cpuUs, f.rates());
        }
        double plain = figures.get(BlackBoxFormats.PLAIN).msgsPerS();
        return RelayDrain.formats(Common.of(env.fsync(), b.ordering().text(), b.backlog().keys().text(), payloadBytes,
                        warm.rows(), warm.rounds()), n, plain, Round.one(ceiling.higher()), ceiling.runs(),
                Round.two(plain / ceiling.higher()), lost, duplicates, figures);
    }

    /** A timed drain's rate, the service's CPU time over it, and its lost and duplicate rows. */
    private record Drained(double rate, long cpuNanos, long lost, long duplicates) {
    }

    /**
     * N rows to a topic of their own (6 partitions, created) seeded while {@code f}'s relay is paused, then resumed
     * until the harness's consumer has seen them all; the relay is paused again afterwards and the schema vacuumed.
     */
    private static Drained drain(BenchEnvironment env, OutboxRows outbox, Format f, int round, String keys,
            int payloadBytes, int n) throws Exception {
        String topic = "bench-" + f.schema() + "-r" + round;
        env.createTopic(topic, 6);
        ServiceClient client = f.service().client();
        try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            outbox.insert(f.schema(), topic, keys, payloadBytes, n);
            long cpuBefore = f.service().cpu().toNanos();
            long start = System.nanoTime();
            client.resume();
            boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(10),
                    Progress.since("formats " + f.name() + " round " + round, start), client::backlog);
            long cpu = f.service().cpu().toNanos() - cpuBefore;
            client.pause();
            OutboxRows.Deliveries deliveries = outbox.deliveries(f.schema(), topic);
            System.out.printf(Locale.ROOT, "formats: %s round %d: %.0f msgs/s first claim to last delivery (%s UTC),"
                    + " service CPU %.1f s (%s)%n", f.name(), round, deliveries.rate(), deliveries.window(), cpu / 1e9,
                    all ? "all confirmed" : "NOT all confirmed");
            Drained drained = new Drained(deliveries.rate(), cpu, confirmed.lost(outbox.ids(f.schema(), topic)),
                    confirmed.duplicates());
            outbox.vacuum(f.schema());
            return drained;
        }
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
