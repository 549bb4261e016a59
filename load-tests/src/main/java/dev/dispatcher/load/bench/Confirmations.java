package dev.dispatcher.load.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Consumes a topic from the beginning on its own thread and counts what really arrived: records, distinct message
 * ids, and the first arrival time of each id. The only source of lost and duplicate figures.
 */
public final class Confirmations implements AutoCloseable {

    private final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
    /**
     * Each id's first record's timestamp (the producer's send time, epoch ms), for {@link LatencyTail}: latency runs
     * only, so a drain's consumer does no work it does not need.
     */
    private final Map<String, Long> sentAtMillis = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * How the consumer fetches. A latency run times each record's arrival, so it asks for whatever is there every
     * few milliseconds. A drain only counts: it fetches in large batches, as a downstream consumer tuned for
     * throughput does, so that the broker and this consumer take little CPU from the relay under test
     * (docs/measurements.md).
     */
    public enum Fetch {
        /** Fetch whatever arrived, waiting at most 5 ms: arrival times are measured. */
        LATENCY(1, 5),
        /** Fetch at least 512 KiB or what arrived within 100 ms: counting only; adds at most 100 ms at the end. */
        THROUGHPUT(512 * 1024, 100);

        private final int minBytes;
        private final int maxWaitMs;

        Fetch(int minBytes, int maxWaitMs) {
            this.minBytes = minBytes;
            this.maxWaitMs = maxWaitMs;
        }
    }

    public Confirmations(String bootstrap, String topic, int partitions, Fetch fetch) {
        KafkaConsumer<String, byte[]> consumer = consumer(bootstrap, topic, partitions, fetch);
        thread = new Thread(() -> {
            try (consumer) {
                while (running) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                        long now = System.nanoTime();
                        records.incrementAndGet();
                        Header id = r.headers().lastHeader("message-id");
                        if (id != null) {
                            String messageId = new String(id.value(), StandardCharsets.UTF_8);
                            if (firstSeenNanos.putIfAbsent(messageId, now) == null && fetch == Fetch.LATENCY) {
                                sentAtMillis.put(messageId, r.timestamp());
                            }
                        }
                    }
                }
            }
        }, "bench-consumer");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * A consumer of every partition of {@code topic} from the beginning, reading committed records only, in a group
     * of its own that commits nothing: the harness's view of what arrived.
     */
    public static KafkaConsumer<String, byte[]> consumer(String bootstrap, String topic, int partitions, Fetch fetch) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + System.nanoTime());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, fetch.minBytes);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetch.maxWaitMs);
        KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> assigned = IntStream.range(0, partitions)
                .mapToObj(i -> new TopicPartition(topic, i)).toList();
        consumer.assign(assigned);
        consumer.seekToBeginning(assigned);
        return consumer;
    }

    public long records() {
        return records.get();
    }

    public long distinct() {
        return firstSeenNanos.size();
    }

    public Long firstSeenNanos(String id) {
        return firstSeenNanos.get(id);
    }

    /** The timestamp of the first record of {@code id} (epoch ms), or null (or always null in a drain). */
    public Long sentAtMillis(String id) {
        return sentAtMillis.get(id);
    }

    /**
     * Waits until {@code n} distinct ids arrived or the timeout passes, printing {@code progress} (ids confirmed,
     * rate, and {@code backlog}'s live rows) every few seconds; returns whether they did.
     */
    public boolean awaitDistinct(long n, Duration timeout, Progress progress, LongSupplier backlog)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (distinct() < n && System.nanoTime() < deadline) {
            Thread.sleep(2); // the caller's (main) thread polls the consumer thread's count
            progress.maybePrint(() -> progress.count(distinct(), n, "confirmed") + ", backlog "
                    + backlog.getAsLong());
        }
        return distinct() >= n;
    }

    /**
     * Waits until every id of {@code ids} arrived or {@code timeout} passed; true when all did. Unlike {@link
     * #awaitDistinct}, records of earlier phases on the same topic do not count.
     */
    public boolean awaitAll(Set<String> ids, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lost(ids) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20); // the caller's (main) thread polls the consumer thread's map
        }
        return lost(ids) == 0;
    }

    /** Lost: expected ids that never arrived. */
    public long lost(Set<String> expected) {
        return expected.stream().filter(id -> !firstSeenNanos.containsKey(id)).count();
    }

    /** Duplicates: records beyond the first of each id. */
    public long duplicates() {
        return records.get() - firstSeenNanos.size();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5000);
    }
}
