package dev.dispatcher.load;

import java.nio.file.Path;
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
 * {@code large-drain}: the relay's memory under large payloads. The service jar in a small heap ({@code -Xmx512m}
 * unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise, default settings otherwise: {@code
 * dispatcher.relay.max-in-flight-bytes} 64MB) drains {@code --n} rows (5,000) of {@code --payload-bytes} (2 MiB)
 * each, inserted by SQL while the relay is paused. The topic takes records that large ({@code max.message.bytes})
 * and the service's producer sends them ({@code max.request.size}); the payloads are one repeated character, which
 * PostgreSQL stores compressed but the relay holds and sends whole. Every row must reach Kafka (counted by
 * consuming the topic), and the service's log must hold no {@code OutOfMemoryError}; the service's heap in use is
 * sampled from its Prometheus endpoint every 500 ms. RESULT {@code relay-large-payload}.
 */
final class LargePayloadDrain {

    private LargePayloadDrain() {
    }

    static String run(BenchEnvironment env, BenchOptions o) throws Exception {
        String schema = env.serviceSchema("large");
        String topic = "bench-" + schema;
        int recordLimit = o.payloadBytes() + 1024 * 1024; // the payload, and room for headers and batch overhead
        env.createTopic(topic, 6);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", env.kafka.bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                    new AlterConfigOp(new ConfigEntry("max.message.bytes", Integer.toString(recordLimit)),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        Path log = Path.of("target", "large-drain-service.log");
        String jvmOptions = System.getProperty("dispatcher.bench.service-jvm-options", "-Xmx512m").strip();
        List<String> arguments = new ArrayList<>(ServiceProcess.serverArguments(env.postgres, env.kafka, schema));
        arguments.addAll(List.of(
                "--dispatcher.relay.ordering=" + o.orderingName(),
                "--spring.kafka.producer.properties[max.request.size]=" + recordLimit,
                "--dispatcher.security.public-prometheus=true",
                // ingest is not used; a token keeps the security configuration complete
                "--dispatcher.security.tokens[0].name=bench",
                "--dispatcher.security.tokens[0].sha256=" + "0".repeat(64),
                "--dispatcher.security.tokens[0].roles=PRODUCER"));
        arguments.addAll(o.serviceArgs());
        Map<String, Object> r = RelayBenchmark.common(env, o, "relay-large-payload");
        try (ServiceProcess service = ServiceProcess.start(ServiceProcess.defaultJar(),
                List.of(jvmOptions.split("\\s+")), arguments, log);
                Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                        Confirmations.Fetch.THROUGHPUT)) {
            System.out.printf(Locale.ROOT, "service: java %s -jar, pid %d; %d rows of %d bytes%n", jvmOptions,
                    service.pid(), o.n(), o.payloadBytes());
            BlackBoxDrain.setPaused(env, schema, true);
            long seeding = System.nanoTime();
            env.insertRows(schema, topic, o, o.n());
            System.out.printf(Locale.ROOT, "large-drain: %d rows inserted in %.1f s%n", o.n(),
                    (System.nanoTime() - seeding) / 1e9);
            AtomicLong peakHeap = new AtomicLong();
            Thread sampler = Thread.ofPlatform().daemon().start(() -> sampleHeap(service, peakHeap));
            long start = System.nanoTime();
            BlackBoxDrain.setPaused(env, schema, false);
            boolean all = confirmed.awaitDistinct(o.n(), Duration.ofMinutes(30), () -> { });
            double seconds = (System.nanoTime() - start) / 1e9;
            sampler.interrupt();
            long oom = ServiceProcess.logLinesContaining(log, "OutOfMemoryError");
            double rate = o.n() / seconds;
            System.out.printf(Locale.ROOT, "large-drain: %d rows in %.1f s = %.1f msgs/s, %.1f MB/s (%s); peak heap"
                    + " in use %d MB; OutOfMemoryError lines in the log: %d; service alive: %s%n", o.n(), seconds, rate,
                    rate * o.payloadBytes() / 1e6, all ? "all confirmed" : "NOT all confirmed",
                    peakHeap.get() / (1024 * 1024), oom, service.isAlive());
            r.put("n", o.n());
            r.put("msgs_per_s", RelayBenchmark.round(rate));
            r.put("mb_per_s", RelayBenchmark.round(rate * o.payloadBytes() / 1e6));
            r.put("lost", confirmed.lost(env.ids(schema, topic)));
            r.put("duplicates", confirmed.duplicates());
            r.put("oom_lines", oom);
            r.put("service_alive", service.isAlive());
            r.put("peak_heap_used_bytes", peakHeap.get());
            r.put("service_jvm_options", jvmOptions);
        }
        return RelayBenchmark.json(r);
    }

    /** Until interrupted: the service's heap in use (every heap pool summed), its peak kept in {@code peak}. */
    private static void sampleHeap(ServiceProcess service, AtomicLong peak) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                long heap = 0;
                for (String line : service.prometheus().split("\n")) {
                    if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                        heap += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    }
                }
                peak.accumulateAndGet(heap, Math::max);
                Thread.sleep(500); // a sampling thread of the harness
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // a missed sample: the next one counts
            }
        }
    }
}
