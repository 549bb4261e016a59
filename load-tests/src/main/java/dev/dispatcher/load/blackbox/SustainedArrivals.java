package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.Confirmations;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;

/**
 * relay-sustained's view of the topic: consumes it from the beginning on its own thread ({@link
 * Confirmations#consumer}) and marks each written id's bit ({@link SustainedWriters#index}); a record whose bit is
 * already set is a duplicate. Each first arrival is counted in the minute it arrived (minute 1 starts with the
 * writers' schedule) with its latency from its batch's commit. Memory: a bit per written row and four bytes per
 * arrival's latency.
 */
final class SustainedArrivals implements AutoCloseable {

    private static final long MINUTE_NANOS = Duration.ofMinutes(1).toNanos();

    private final SustainedWriters writers;
    private final Thread thread;
    private final BitSet seen = new BitSet();
    /** Latencies in ms of each minute's first arrivals, index 0 for minute 1; guarded by {@code this}. */
    private final List<Latencies> minutes = new ArrayList<>();
    private long duplicates;
    private long foreign;
    private long uncommitted;
    private volatile long startNanos = Long.MAX_VALUE;
    private volatile boolean running = true;

    SustainedArrivals(String bootstrap, String topic, int partitions, SustainedWriters writers) {
        this.writers = writers;
        KafkaConsumer<String, byte[]> consumer = Confirmations.consumer(bootstrap, topic, partitions,
                Confirmations.Fetch.LATENCY);
        thread = Thread.ofPlatform().daemon().name("bench-sustained-consumer").start(() -> {
            try (consumer) {
                while (running) {
                    var records = consumer.poll(Duration.ofMillis(20));
                    long now = System.nanoTime();
                    synchronized (this) {
                        for (ConsumerRecord<String, byte[]> r : records) {
                            arrived(r, now);
                        }
                    }
                }
            }
        });
    }

    /** Minute 1 starts at {@code startNanos}, the writers' schedule's start. */
    void start(long startNanos) {
        this.startNanos = startNanos;
    }

    private void arrived(ConsumerRecord<String, byte[]> r, long now) {
        Header header = r.headers().lastHeader("message-id");
        long index = header == null ? -1
                : writers.index(UUID.fromString(new String(header.value(), StandardCharsets.UTF_8)));
        if (index < 0) {
            foreign++;
            return;
        }
        if (seen.get((int) index)) {
            duplicates++;
            return;
        }
        seen.set((int) index);
        long committed = writers.committedAtNanos(index);
        if (committed == 0) {
            uncommitted++; // seen before its writer noted the commit: counted, not timed
        }
        int minute = (int) (Math.max(0, now - startNanos) / MINUTE_NANOS);
        while (minutes.size() <= minute) {
            minutes.add(new Latencies());
        }
        Latencies bucket = minutes.get(minute);
        bucket.count++;
        if (committed != 0) {
            bucket.add((float) ((now - committed) / 1e6));
        }
    }

    /** Ids of minute {@code minute} (1-based) that arrived first, and their latencies. */
    synchronized Minute minute(int minute) {
        Latencies bucket = minute <= minutes.size() ? minutes.get(minute - 1) : new Latencies();
        return new Minute(bucket.count, bucket.percentile(0.99));
    }

    /** First arrivals of minute {@code minute}, and the 99th percentile of their commit-to-arrival in ms. */
    record Minute(long arrived, double p99Ms) {
    }

    /** The 99th percentile commit-to-arrival of the first arrivals from minute {@code first} (1-based) on, in ms. */
    synchronized double p99MsFrom(int first) {
        Latencies all = new Latencies();
        for (Latencies bucket : minutes.subList(Math.min(first - 1, minutes.size()), minutes.size())) {
            all.addAll(bucket);
        }
        return all.percentile(0.99);
    }

    /** Distinct written ids seen. */
    synchronized long distinct() {
        return seen.cardinality();
    }

    /** Rows of committed batches never seen. */
    synchronized long lost() {
        return writers.unseen(seen);
    }

    /** Records of a written id beyond its first. */
    synchronized long duplicates() {
        return duplicates;
    }

    /** Records of no row of this run (none expected: the topic is the run's own). */
    synchronized long foreign() {
        return foreign;
    }

    /** First arrivals seen before their writer noted the commit (not timed). */
    synchronized long untimed() {
        return uncommitted;
    }

    /** Waits until every committed row arrived or {@code timeout} passed; true when all did. */
    boolean awaitAll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lost() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200); // the harness's main thread polls the consumer thread's bits
        }
        return lost() == 0;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5000);
    }

    /** A growable array of latencies in ms. */
    private static final class Latencies {
        private float[] values = new float[1024];
        private int size;
        private long count;

        void add(float value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        void addAll(Latencies other) {
            for (int i = 0; i < other.size; i++) {
                add(other.values[i]);
            }
        }

        double percentile(double p) {
            if (size == 0) {
                return 0;
            }
            float[] sorted = Arrays.copyOf(values, size);
            Arrays.sort(sorted);
            return sorted[Math.min(size - 1, (int) Math.ceil(p * size) - 1)];
        }
    }
}
