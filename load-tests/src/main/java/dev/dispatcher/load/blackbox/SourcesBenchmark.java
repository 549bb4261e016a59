package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.ExternalServers;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.BlackBoxSources;
import dev.dispatcher.load.reference.PgCeiling;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.MessageCost;
import dev.dispatcher.load.result.RelayDrain;
import dev.dispatcher.load.result.Round;
import dev.dispatcher.load.result.Sources;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import dev.dispatcher.testkit.PostgresServer;
import dev.dispatcher.testkit.TcpProxy;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code blackbox-sources}: one service jar ({@code java -jar}, its defaults but {@code --ordering}) draining two
 * sources, {@code default} on the first PostgreSQL (A) and {@value BlackBoxSources#SECOND_SOURCE} on the second (B),
 * which the service reaches through a {@link TcpProxy} (the harness connects to B directly). After the reference
 * ceiling of each server and a warm-up on A, four drains of N rows a source, each seeded while both sources are
 * paused (their switches, over HTTP) and counted on Kafka for lost and duplicate rows: A alone, while the costs of
 * one message are read around it ({@link MessageCosts}); B alone; both at once, whose sum is 2N over the span from
 * the first claim on either to the last delivery on either; and both with B's link cut once a fifth of B's rows are
 * on Kafka, for {@code --down-s}: A's rows delivered while B is down, over that span, against A alone, then B's rows
 * all delivered after its link returns. Rates count by the rows' own times. RESULT {@code relay-drain} with {@link
 * Sources}.
 */
public final class SourcesBenchmark {

    private static final int PARTITIONS = 6;
    private static final String DEFAULT_SOURCE = "default";
    /** B's share on Kafka at which its link is cut. */
    private static final double CUT_AT = 0.2;
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);

    private SourcesBenchmark() {
    }

    /** One source of a drain: its name, its database, schema and this drain's topic. */
    private record Side(String source, BenchEnvironment env, String schema, String topic) {
    }

    /** A source's drain: its rate by its rows, its span, and its lost and duplicate rows on Kafka. */
    private record Drained(double rate, OutboxRows.Span span, long lost, long duplicates) {
    }

    /** A drain of one or two sources, and the costs of one message when they were read ({@code NONE} else). */
    private record Phase(List<Drained> drained, MessageCost cost) {
    }

    public static RelayDrain run(BenchEnvironment env, BlackBoxSources b) throws Exception {
        int n = b.backlog().n();
        try (BenchEnvironment second = secondEnvironment(env, b);
             TcpProxy link = TcpProxy.start(second.postgres().host(), second.postgres().port())) {
            String schemaA = env.serviceSchema("sources");
            String schemaB = second.serviceSchema("sources");
            double ceilingA = PgCeiling.measure(env, env.schema("ceiling"), n);
            double ceilingB = PgCeiling.measure(second, second.schema("ceiling"), n);
            System.out.printf(Locale.ROOT, "sources: reference ceilings %.0f (A, %s) and %.0f (B, %s) msgs/s%n",
                    ceilingA, env.postgres(), ceilingB, second.postgres());
            List<String> arguments = new ArrayList<>(ServiceArguments.relay(b.ordering(), List.of()));
            arguments.addAll(secondSource(second.postgres(), link, schemaB));
            arguments.addAll(b.serviceArgs());
            try (ServiceProcess service = Services.startJar(env, schemaA, arguments, "sources-service")) {
                ServiceClient client = service.client();
                BlackBoxDrainBenchmark.Topics warmTopics = new BlackBoxDrainBenchmark.Topics(schemaA, null,
                        "bench-" + schemaA + "-warm", null, null);
                JitWarmUp.Result warm = BlackBoxDrainBenchmark.warmUp(env, List.of(client),
                        JitWarmUp.service(client), warmTopics, b.backlog().keys().sqlExpression(),
                        b.backlog().payloadBytes(), b.warmup());
                client.pause(DEFAULT_SOURCE);
                client.pause(BlackBoxSources.SECOND_SOURCE);
                Side a = new Side(DEFAULT_SOURCE, env, schemaA, null);
                Side bSide = new Side(BlackBoxSources.SECOND_SOURCE, second, schemaB, null);
                MessageCosts costs = MessageCosts.of(env, service);

                Phase phaseA = drain("A alone", client, b, List.of(topic(a, "alone")), costs);
                List<Drained> alone = phaseA.drained();
                List<Drained> aloneB = drain("B alone", client, b, List.of(topic(bSide, "alone")), null).drained();
                List<Drained> both = drain("both", client, b, List.of(topic(a, "both"), topic(bSide, "both")), null)
                        .drained();
                Fault fault = fault(client, b, topic(a, "fault"), topic(bSide, "fault"), link);

                double aAlone = alone.getFirst().rate();
                double bAlone = aloneB.getFirst().rate();
                double sum = 2.0 * n / seconds(earlier(both.get(0).span().firstClaim(), both.get(1).span().firstClaim()),
                        later(both.get(0).span().lastDelivery(), both.get(1).span().lastDelivery()));
                double ratio = sum / Math.max(aAlone, bAlone);
                System.out.printf(Locale.ROOT, "sources: A alone %.0f, B alone %.0f, both at once %.0f + %.0f, sum"
                        + " %.0f msgs/s (%.2f of the better alone); B down: A at %.0f msgs/s (%.2f of alone), B's rows"
                        + " all delivered %.1f s after its link returned%n", aAlone, bAlone, both.get(0).rate(),
                        both.get(1).rate(), sum, ratio, fault.aRate() == null ? Double.NaN : fault.aRate(),
                        fault.aRate() == null ? Double.NaN : fault.aRate() / aAlone, fault.rejoinS());
                long lost = 0;
                long duplicates = 0;
                for (List<Drained> phase : List.of(alone, aloneB, both, fault.drained())) {
                    for (Drained d : phase) {
                        lost += d.lost();
                        duplicates += d.duplicates();
                    }
                }
                Sources sources = new Sources(Round.one(aAlone), Round.one(bAlone), Round.one(both.get(0).rate()),
                        Round.one(both.get(1).rate()), Round.one(sum), Round.two(ratio),
                        fault.aRate() == null ? null : Round.one(fault.aRate()),
                        fault.aRate() == null ? null : Round.two(fault.aRate() / aAlone), Round.one(fault.rejoinS()),
                        Round.one(ceilingB), phaseA.cost());
                return RelayDrain.twoSources(Common.of(env.fsync() && second.fsync(), b.ordering().text(),
                                b.backlog().keys().text(), b.backlog().payloadBytes(), warm.rows(), warm.rounds()), n,
                        Round.one(aAlone), Round.one(ceilingA), Round.two(aAlone / ceilingA), lost, duplicates,
                        sources);
            }
        }
    }

    /** The second server: {@code --pg2-url}, or a second embedded durable one beside an embedded first. */
    private static BenchEnvironment secondEnvironment(BenchEnvironment env, BlackBoxSources b) {
        PostgresServer postgres = b.pg2Url() != null
                ? ExternalServers.postgres(b.pg2Url(), b.pg2User(), b.pg2Password())
                : EmbeddedPostgresServer.durable();
        return new BenchEnvironment(postgres, ExternalServers.kafka(env.kafka().bootstrapServers()));
    }

    /** The service's settings of source B, reached through {@code link}. */
    private static List<String> secondSource(PostgresServer postgres, TcpProxy link, String schema) {
        String prefix = "--dispatcher.sources[0].";
        return List.of(prefix + "name=" + BlackBoxSources.SECOND_SOURCE,
                prefix + "url=r2dbc:postgresql://" + link.host() + ":" + link.port() + "/" + postgres.database(),
                prefix + "username=" + postgres.username(), prefix + "password=" + postgres.password(),
                prefix + "schema=" + schema);
    }

    /** {@code side} with a topic of its own for {@code phase}, created. */
    private static Side topic(Side side, String phase) {
        String topic = "bench-" + side.schema() + "-" + phase;
        side.env().createTopic(topic, PARTITIONS);
        return new Side(side.source(), side.env(), side.schema(), topic);
    }

    /**
     * N rows for each of {@code sides} seeded while their sources are paused, then resumed together and drained;
     * {@code costs} (or null) read around the drain. Pauses them again after.
     */
    private static Phase drain(String phase, ServiceClient client, BlackBoxSources b, List<Side> sides,
            MessageCosts costs) throws Exception {
        int n = b.backlog().n();
        List<Confirmations> confirmations = new ArrayList<>();
        try {
            for (Side side : sides) {
                confirmations.add(new Confirmations(side.env().kafka().bootstrapServers(), side.topic(), PARTITIONS,
                        Confirmations.Fetch.THROUGHPUT));
                seed(side, b);
            }
            MessageCosts.Reading before = costs == null ? null : costs.read();
            long start = System.nanoTime();
            for (Side side : sides) {
                client.resume(side.source());
            }
            for (Confirmations confirmed : confirmations) {
                confirmed.awaitDistinct(n, DRAIN_TIMEOUT, Progress.since("sources " + phase, start), client::backlog);
            }
            MessageCost cost = MessageCost.NONE;
            if (costs != null) {
                cost = MessageCosts.perMessage(before, costs.read(), (long) n * sides.size());
                System.out.println("sources " + phase + ": per message " + cost);
            }
            for (Side side : sides) {
                client.pause(side.source());
            }
            return new Phase(drained(phase, sides, confirmations), cost);
        } finally {
            for (Confirmations confirmed : confirmations) {
                confirmed.close();
            }
        }
    }

    /** Each side's rate, span and lost and duplicate rows, printed. */
    private static List<Drained> drained(String phase, List<Side> sides, List<Confirmations> confirmations)
            throws Exception {
        List<Drained> drained = new ArrayList<>();
        for (int i = 0; i < sides.size(); i++) {
            Side side = sides.get(i);
            OutboxRows rows = new OutboxRows(side.env());
            OutboxRows.Deliveries deliveries = rows.deliveries(side.schema(), side.topic());
            Confirmations confirmed = confirmations.get(i);
            long lost = confirmed.lost(rows.ids(side.schema(), side.topic()));
            System.out.printf(Locale.ROOT, "sources %s: %s %.0f msgs/s first claim to last delivery (%s UTC), %d lost,"
                    + " %d duplicates; per second: %s%n", phase, side.source(), deliveries.rate(), deliveries.window(),
                    lost, confirmed.duplicates(), deliveries.eachSecond());
            drained.add(new Drained(deliveries.rate(), rows.span(side.schema(), side.topic()), lost,
                    confirmed.duplicates()));
        }
        return drained;
    }

    /**
     * The fault drain: A's rate while B was down (null when A had finished before the cut), seconds from B's return
     * to its last delivery, both drains.
     */
    private record Fault(Double aRate, double rejoinS, List<Drained> drained) {
    }

    /**
     * Both seeded and resumed; once {@link #CUT_AT} of B's rows are on Kafka, B's link is cut for {@code --down-s}
     * (every connection closed, new ones closed at once), then restored; both drained to the end.
     */
    private static Fault fault(ServiceClient client, BlackBoxSources b, Side a, Side bSide, TcpProxy link)
            throws Exception {
        int n = b.backlog().n();
        OutboxRows rowsA = new OutboxRows(a.env());
        OutboxRows rowsB = new OutboxRows(bSide.env());
        try (Confirmations confirmedA = new Confirmations(a.env().kafka().bootstrapServers(), a.topic(), PARTITIONS,
                Confirmations.Fetch.THROUGHPUT);
             Confirmations confirmedB = new Confirmations(bSide.env().kafka().bootstrapServers(), bSide.topic(),
                     PARTITIONS, Confirmations.Fetch.THROUGHPUT)) {
            seed(a, b);
            seed(bSide, b);
            long start = System.nanoTime();
            client.resume(a.source());
            client.resume(bSide.source());
            confirmedB.awaitDistinct((long) Math.ceil(n * CUT_AT), DRAIN_TIMEOUT, Progress.since("sources fault",
                    start), client::backlog);
            OffsetDateTime cut = rowsA.databaseNow();
            link.cut();
            System.out.printf(Locale.ROOT, "sources fault: B's link cut at %s with %d of B's and %d of A's rows on"
                    + " Kafka%n", cut, confirmedB.distinct(), confirmedA.distinct());
            Thread.sleep(b.down().toMillis()); // the harness's main thread: B stays down this long
            OffsetDateTime restored = rowsA.databaseNow();
            link.restore();
            confirmedA.awaitDistinct(n, DRAIN_TIMEOUT, Progress.since("sources fault A", start), client::backlog);
            confirmedB.awaitDistinct(n, DRAIN_TIMEOUT, Progress.since("sources fault B", start), () -> -1);
            OffsetDateTime aEnd = earlier(restored, rowsA.span(a.schema(), a.topic()).lastDelivery());
            Double aRate = aEnd.isAfter(cut)
                    ? rowsA.deliveredBetween(a.schema(), a.topic(), cut, aEnd) / seconds(cut, aEnd) : null;
            double rejoin = seconds(restored, rowsB.span(bSide.schema(), bSide.topic()).lastDelivery());
            List<Drained> drained = drained("fault", List.of(a, bSide), List.of(confirmedA, confirmedB));
            return new Fault(aRate, rejoin, drained);
        }
    }

    private static void seed(Side side, BlackBoxSources b) throws Exception {
        new OutboxRows(side.env()).insert(side.schema(), side.topic(), b.backlog().keys().sqlExpression(),
                b.backlog().payloadBytes(), b.backlog().n());
    }

    private static double seconds(OffsetDateTime from, OffsetDateTime to) {
        return Math.max(Duration.between(from, to).toNanos(), 1_000_000) / 1e9;
    }

    private static OffsetDateTime earlier(OffsetDateTime x, OffsetDateTime y) {
        return x.isBefore(y) ? x : y;
    }

    private static OffsetDateTime later(OffsetDateTime x, OffsetDateTime y) {
        return x.isAfter(y) ? x : y;
    }
}
