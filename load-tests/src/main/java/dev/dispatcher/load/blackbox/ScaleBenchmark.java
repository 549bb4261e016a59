package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.HarnessRelay;
import dev.dispatcher.load.bench.JitWarmUp;
import dev.dispatcher.load.bench.LatencyTail;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.PrometheusText;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.bench.ServiceWarmUp;
import dev.dispatcher.load.mode.Backlog;
import dev.dispatcher.load.mode.BlackBoxScale;
import dev.dispatcher.load.mode.Scale;
import dev.dispatcher.load.result.RelayDrain;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The scale curves ({@link ScaleCurve}). For each step, that many services, each in its own JVM, on one schema; they
 * warm up together on rounds of {@code --warmup} rows of their own topics, paused and resumed through the
 * cluster-wide switch, until their mean compilation share settles, and the outbox is vacuumed; then the switch
 * pauses every one of them (each re-reads it at once), N rows are seeded, analysed and checkpointed, and it resumes
 * every one. Lost and duplicates come from the harness's consumer, which waits for all N ids; the Applied Deliver
 * transitions of the measured drain are summed over the services' Prometheus endpoints (must equal N: no row
 * delivered twice by two services).
 * <ul>
 *   <li>{@code scale}: the service from the harness's class path ({@code java -cp ... DispatcherApplication}) with
 *       the harness's relay settings ({@link HarnessRelay}); the rate counts from the resume until the consumer has
 *       seen all N ids, the window is that span by the harness's clock.</li>
 *   <li>{@code blackbox-scale}: the service jar with its defaults but {@code --ordering}; the rate counts from the
 *       first claim to the last delivery by the rows' own times (a clock started at the resume would count the
 *       resume calls), the window is that span by the database's clock. RESULT with {@code "service_jar":true}.
 *       With {@code --fresh-n}, first one and then {@code --fresh-instances} fresh jars started together on a
 *       standing backlog ({@link FreshScale}), RESULT {@code fresh_curve} and the others of {@link
 *       RelayDrain.FreshCurve}.</li>
 * </ul>
 */
public final class ScaleBenchmark {

    private ScaleBenchmark() {
    }

    public static RelayDrain scale(BenchEnvironment env, Scale s) throws Exception {
        ServiceProcess.Launch launch = new ServiceProcess.Launch.ClassPath(ServiceProcess.harnessClassPath());
        List<String> arguments = HarnessRelay.arguments(s.tuning(), s.ordering());
        return ScaleCurve.run(env, Scale.NAME, s.backlog().n(), s.ordering().text(), s.backlog().keys().text(),
                s.backlog().payloadBytes(), k -> step(env, Scale.NAME, launch, arguments, s.backlog(), s.warmup(), k,
                        false), null);
    }

    public static RelayDrain blackBoxScale(BenchEnvironment env, BlackBoxScale b) throws Exception {
        ServiceProcess.Launch launch = new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar());
        List<String> arguments = ServiceArguments.relay(b.ordering(), b.serviceArgs());
        FreshScale.Result fresh = b.freshN() == 0 ? new FreshScale.Result(RelayDrain.FreshCurve.NONE, 0, 0)
                : FreshScale.run(env, BlackBoxScale.NAME, launch, arguments,
                        new Backlog(b.freshN(), b.backlog().keys(), b.backlog().payloadBytes()), b.freshInstances());
        return ScaleCurve.run(env, BlackBoxScale.NAME, b.backlog().n(), b.ordering().text(),
                b.backlog().keys().text(), b.backlog().payloadBytes(), k -> step(env, BlackBoxScale.NAME, launch,
                        arguments, b.backlog(), b.warmup(), k, true), true)
                .withFreshCurve(fresh.curve(), fresh.lost(), fresh.duplicates());
    }

    private static ScaleCurve.Step step(BenchEnvironment env, String mode, ServiceProcess.Launch launch,
            List<String> arguments, Backlog backlog, int warmup, int k, boolean byRowTimes) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        BlackBoxDrainBenchmark.Topics topics = BlackBoxDrainBenchmark.Topics.create(env, mode.replace('-', '_'));
        String keys = backlog.keys().sqlExpression();
        List<ServiceProcess> services = new ArrayList<>();
        try {
            for (int i = 0; i < k; i++) {
                services.add(Services.start(env, launch, Services.jvmOptions(""), topics.schema(), arguments,
                        mode + "-service-" + i));
            }
            List<ServiceClient> clients = services.stream().map(ServiceProcess::client).toList();
            JitWarmUp.Result warm = BlackBoxDrainBenchmark.warmUp(env, clients, JitWarmUp.meanOf(clients), topics,
                    keys, backlog.payloadBytes(), warmup);
            long appliedBefore = appliedDelivers(clients);
            try (Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topics.measured(), 6,
                    Confirmations.Fetch.THROUGHPUT)) {
                ServiceWarmUp.pause(clients);
                outbox.insert(topics.schema(), topics.measured(), keys, backlog.payloadBytes(), backlog.n());
                Instant wallStart = Instant.now();
                long start = System.nanoTime();
                ServiceWarmUp.resume(clients);
                boolean all = confirmed.awaitDistinct(backlog.n(), Duration.ofMinutes(10),
                        Progress.since(mode + " " + k, start), clients.getFirst()::backlog);
                double consumerRate = backlog.n() / ((System.nanoTime() - start) / 1e9);
                Instant wallEnd = Instant.now();
                if (!all) {
                    System.out.printf(Locale.ROOT, "%s: %d service(s): NOT all confirmed%n", mode, k);
                }
                OutboxRows.Deliveries deliveries = outbox.deliveries(topics.schema(), topics.measured());
                Set<String> ids = outbox.ids(topics.schema(), topics.measured());
                return new ScaleCurve.Step(k, byRowTimes ? deliveries.rate() : consumerRate,
                        appliedDelivers(clients) - appliedBefore, confirmed.lost(ids), confirmed.duplicates(),
                        byRowTimes ? deliveries.window()
                                : LatencyTail.CLOCK.format(wallStart) + " to " + LatencyTail.CLOCK.format(wallEnd),
                        warm);
            }
        } finally {
            for (ServiceProcess service : services) {
                service.close();
            }
        }
    }

    /** The Applied Deliver transitions of the outbox, summed over the services' Prometheus endpoints. */
    private static long appliedDelivers(List<ServiceClient> services) throws Exception {
        long sum = 0;
        for (ServiceClient service : services) {
            sum += PrometheusText.appliedDelivers(service.prometheus());
        }
        return sum;
    }
}
