package dev.dispatcher.load.gatling;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link IngestBenchmark} hands to a run of {@link IngestSimulation} (both in this JVM), and the figures the
 * simulation records per request for it. Owner: the harness sets {@link #config} before each run and reads
 * {@link #figures} after it; Gatling's threads only record into the figures (concurrent collections).
 */
final class IngestLoad {

    /**
     * The request shapes: fresh single messages, fresh batches, singles repeated from the first, fresh singles while
     * {@code --health-clients} more clients call {@code /actuator/health} as fast as it answers ({@code
     * health-flood}), and the warm-up (singles with one batch of {@value #WARMUP_BATCH_SIZE} in twenty, to a topic
     * the Kafka check leaves out).
     */
    enum Scenario {
        SINGLE(202, 1), BATCH(202, IngestLoad.BATCH_SIZE), REPLAY(200, 1), HEALTH_FLOOD(202, 1), WARMUP(202, 1);

        final int expectedStatus;
        final int messagesPerRequest;

        Scenario(int expectedStatus, int messagesPerRequest) {
            this.expectedStatus = expectedStatus;
            this.messagesPerRequest = messagesPerRequest;
        }
    }

    /** The measured scenarios' topic is this plus the run's name: a broker that outlives runs keeps them apart. */
    static final String TOPIC_PREFIX = "gatling.ingest.";
    static final int KEYS = 64;
    static final int BATCH_SIZE = 100;
    static final int WARMUP_BATCH_SIZE = 10;

    /**
     * One run: where, as whom, which shape, how many clients for how long, the ids a replay repeats, and how many
     * health callers run beside the producers ({@link Scenario#HEALTH_FLOOD} only), from how many client
     * addresses ({@code 127.0.1.1} up; one: all from the loopback address the producers use).
     */
    record Config(String baseUrl, String producerToken, Scenario scenario, int concurrency, Duration duration,
            List<String> replayIds, String topic, int healthClients, int healthAddresses) {
    }

    static volatile Config config;
    static volatile Figures figures;

    private IngestLoad() {
    }

    /**
     * The body of message {@code id} to {@code topic}: a function of the two alone, so a replay repeats the original
     * content exactly (a 200, not a 409). Keys spread over {@value #KEYS}; the payload is about 150 bytes of JSON.
     */
    static String message(String id, String topic) {
        SplittableRandom r = new SplittableRandom(UUID.fromString(id).getLeastSignificantBits());
        int order = r.nextInt(1_000_000);
        return """
                {"id":"%s","topic":"%s","key":"k%d","type":"OrderPlaced","payload":{"orderId":%d,\
                "customer":"customer-%d","lines":[{"sku":"SKU-%d","qty":%d}],"note":"%s"}}""".formatted(
                id, topic, Math.floorMod(id.hashCode(), KEYS), order, order % 500, r.nextInt(10_000),
                1 + r.nextInt(5), "x".repeat(40 + r.nextInt(20)));
    }

    /** The payload part of {@link #message}, for the record of the payload size. */
    static int payloadBytes() {
        String body = message(UUID.randomUUID().toString(), "t");
        return body.length() - body.indexOf("\"payload\":") - "\"payload\":".length() - 1;
    }

    /** Per-request figures of one run. */
    static final class Figures {

        final ConcurrentLinkedQueue<Long> latenciesMillis = new ConcurrentLinkedQueue<>();
        final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        final Set<String> accepted = ConcurrentHashMap.newKeySet();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong messages = new AtomicLong();
        private final AtomicLong firstNanos = new AtomicLong();
        private volatile long lastNanos;

        final ConcurrentLinkedQueue<Long> answeredNanos = new ConcurrentLinkedQueue<>();

        void record(Scenario scenario, Integer status, Long responseMillis, List<String> ids) {
            long now = System.nanoTime();
            answeredNanos.add(now);
            firstNanos.compareAndSet(0, now);
            lastNanos = now;
            requests.incrementAndGet();
            statuses.computeIfAbsent(status == null ? 0 : status, s -> new AtomicLong()).incrementAndGet();
            if (responseMillis != null) {
                latenciesMillis.add(responseMillis);
            }
            if (status == null || status != scenario.expectedStatus) {
                failed.incrementAndGet();
                return;
            }
            messages.addAndGet(ids.size());
            if (scenario == Scenario.SINGLE || scenario == Scenario.BATCH || scenario == Scenario.HEALTH_FLOOD) {
                accepted.addAll(ids);
            }
        }

        /** Health calls answered, by status ({@link Scenario#HEALTH_FLOOD}). */
        final Map<Integer, AtomicLong> healthStatuses = new ConcurrentHashMap<>();
        final AtomicLong healthCalls = new AtomicLong();

        void recordHealth(Integer status) {
            healthCalls.incrementAndGet();
            healthStatuses.computeIfAbsent(status == null ? 0 : status, s -> new AtomicLong()).incrementAndGet();
        }

        /** Ingest answers with {@code status}. */
        long answered(int status) {
            AtomicLong n = statuses.get(status);
            return n == null ? 0 : n.get();
        }

        volatile double serviceCores;
        volatile double loadCores;
        volatile double postgresCores;

        /** Records the CPU time each process used during the run, as cores (time over the run's length). */
        void cpu(java.time.Duration service, java.time.Duration load, java.time.Duration postgres) {
            serviceCores = service.toNanos() / 1e9 / seconds();
            loadCores = load.toNanos() / 1e9 / seconds();
            postgresCores = postgres.toNanos() / 1e9 / seconds();
        }

        /** Answers per second in each {@code bucket} from the first answer, e.g. " 10s:412/s 20s:655/s". */
        String ratesPer(Duration bucket) {
            long first = firstNanos.get();
            Map<Long, Long> counts = new java.util.TreeMap<>();
            for (long at : answeredNanos) {
                counts.merge((at - first) / bucket.toNanos(), 1L, Long::sum);
            }
            StringBuilder rates = new StringBuilder();
            counts.forEach((b, n) -> rates.append(String.format(java.util.Locale.ROOT, " %ds:%.0f/s",
                    (b + 1) * bucket.toSeconds(), n / (double) bucket.toSeconds())));
            return rates.toString();
        }

        double seconds() {
            return Math.max(1e-9, (lastNanos - firstNanos.get()) / 1e9);
        }

        long percentile(double p) {
            List<Long> sorted = latenciesMillis.stream().sorted().toList();
            return sorted.isEmpty() ? -1 : sorted.get(Math.max(0, (int) Math.ceil(p / 100 * sorted.size()) - 1));
        }
    }
}
