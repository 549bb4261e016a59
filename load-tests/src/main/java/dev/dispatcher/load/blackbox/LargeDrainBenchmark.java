package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Confirmations;
import dev.dispatcher.load.bench.OutboxRows;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.PrometheusText;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.LargeDrain;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayLargePayload;
import dev.dispatcher.load.result.Round;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * {@code large-drain}: the relay's memory under large payloads. The service jar in a small heap ({@value
 * #DEFAULT_JVM_OPTIONS} unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise; its defaults
 * otherwise, so {@code dispatcher.relay.max-in-flight-bytes} 64MB) drains {@code --n} rows of {@code --payload-bytes}
 * each, inserted by SQL while the relay is paused. The topic takes records that large ({@code max.message.bytes})
 * and the service's producer sends them ({@code max.request.size}); the payloads are one repeated character, which
 * PostgreSQL stores compressed but the relay holds and sends whole. Every row must reach Kafka (counted by
 * consuming the topic), and the service's log must hold no {@code OutOfMemoryError}; the service's heap in use is
 * sampled from its Prometheus endpoint every 500 ms. RESULT {@code relay-large-payload}.
 */
public final class LargeDrainBenchmark {

    /** The service's heap unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise. */
    static final String DEFAULT_JVM_OPTIONS = "-Xmx512m";

    private LargeDrainBenchmark() {
    }

    public static RelayLargePayload run(BenchEnvironment env, LargeDrain l) throws Exception {
        OutboxRows outbox = new OutboxRows(env);
        String schema = env.serviceSchema("large");
        String topic = "bench-" + schema;
        int n = l.backlog().n();
        int payloadBytes = l.backlog().payloadBytes();
        int recordLimit = payloadBytes + 1024 * 1024; // the payload, and room for headers and batch overhead
        env.createTopic(topic, 6);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", env.kafka().bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                    new AlterConfigOp(new ConfigEntry("max.message.bytes", Integer.toString(recordLimit)),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        List<String> jvmOptions = Services.jvmOptions(DEFAULT_JVM_OPTIONS);
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.kafka.producer.properties[max.request.size]=" + recordLimit));
        arguments.addAll(ServiceArguments.relay(l.ordering(), l.serviceArgs()));
        try (ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                jvmOptions, schema, arguments, "large-drain-service");
             Confirmations confirmed = new Confirmations(env.kafka().bootstrapServers(), topic, 6,
                     Confirmations.Fetch.THROUGHPUT)) {
            ServiceClient client = service.client();
            System.out.printf(Locale.ROOT, "large-drain: %d rows of %d bytes%n", n, payloadBytes);
            client.pause();
            long seeding = System.nanoTime();
            outbox.insert(schema, topic, l.backlog().keys().sqlExpression(), payloadBytes, n);
            System.out.printf(Locale.ROOT, "large-drain: %d rows inserted in %.1f s%n", n,
                    (System.nanoTime() - seeding) / 1e9);
            AtomicLong peakHeap = new AtomicLong();
            Thread sampler = Thread.ofPlatform().daemon().start(() -> sampleHeap(client, peakHeap));
            long start = System.nanoTime();
            client.resume();
            boolean all = confirmed.awaitDistinct(n, Duration.ofMinutes(30), Progress.since("large-drain", start),
                    client::backlog);
            double seconds = (System.nanoTime() - start) / 1e9;
            sampler.interrupt();
            long oom = service.logLinesContaining("OutOfMemoryError");
            double rate = n / seconds;
            System.out.printf(Locale.ROOT, "large-drain: %d rows in %.1f s = %.1f msgs/s, %.1f MB/s (%s); peak heap"
                    + " in use %d MB; OutOfMemoryError lines in the log: %d; service alive: %s%n", n, seconds, rate,
                    rate * payloadBytes / 1e6, all ? "all confirmed" : "NOT all confirmed",
                    peakHeap.get() / (1024 * 1024), oom, service.isAlive());
            return new RelayLargePayload(Common.of(env.fsync(), l.ordering().text(), l.backlog().keys().text(),
                    payloadBytes, 0, 0), n, Round.one(rate), Round.one(rate * payloadBytes / 1e6),
                    confirmed.lost(outbox.ids(schema, topic)), confirmed.duplicates(), oom, service.isAlive(),
                    peakHeap.get(), String.join(" ", jvmOptions));
        }
    }

    /** Until interrupted: the service's heap in use (every heap pool summed), its peak kept in {@code peak}. */
    private static void sampleHeap(ServiceClient service, AtomicLong peak) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                peak.accumulateAndGet(PrometheusText.heapUsedBytes(service.prometheus()), Math::max);
                Thread.sleep(500); // a sampling thread of the harness
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // a missed sample: the next one counts
            }
        }
    }
}
