package dev.dispatcher.load.bench;

import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.RelayLatency;
import dev.dispatcher.load.result.Round;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The latency modes' load: writer threads offer one-row durable transactions at a fixed rate into an outbox (64
 * keys, {@code key-<i % 64>}), and the consumer of {@link Confirmations} times each row from its commit to its
 * arrival on Kafka. Whatever relays the rows (an in-process service, the service jar, the reference relay), the load
 * and the measurement are these.
 *
 * @param env the servers
 * @param schema the outbox's schema
 * @param topic the rows' topic
 * @param rate rows offered a second
 * @param payloadBytes each payload's size
 */
public record LatencyLoad(BenchEnvironment env, String schema, String topic, int rate, int payloadBytes) {

    /** Keys of the offered rows. */
    public static final int KEYS = 64;
    /** The width of one window of the per-window percentiles. */
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(3);

    /**
     * Offers {@link #rate} rows a second for {@code duration} from writer threads, and waits (at most a minute)
     * until {@code confirmed} saw them all. Every writer connects before the clock starts: opening connections after
     * it made the first writes late, and their catch-up a burst.
     */
    public Run offer(Duration duration, Confirmations confirmed) throws Exception {
        Map<String, Long> committedAt = new ConcurrentHashMap<>();
        int writers = Math.max(4, rate / 100);
        long total = (long) rate * duration.toSeconds();
        CountDownLatch connected = new CountDownLatch(writers);
        CompletableFuture<Long> started = new CompletableFuture<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().name("bench-writer-" + w).start(() -> write(writer, writers, total,
                    connected, started, committedAt)));
        }
        connected.await();
        long start = System.nanoTime();
        started.complete(start);
        Progress progress = Progress.since("offer", start);
        for (Thread t : threads) {
            while (!t.join(Duration.ofMillis(200))) {
                progress.maybePrint(() -> progress.count(committedAt.size(), total, "committed") + ", ids on the topic "
                        + confirmed.distinct());
            }
        }
        double offered = committedAt.size() / ((System.nanoTime() - start) / 1e9);
        confirmed.awaitAll(committedAt.keySet(), Duration.ofSeconds(60)); // the topic may hold earlier phases' rows
        return new Run(committedAt, offered, start, confirmed);
    }

    /** One writer thread: one-row transactions, paced to its share of the offered rate. */
    private void write(int writer, int writers, long total, CountDownLatch connected, CompletableFuture<Long> started,
            Map<String, Long> committedAt) {
        double intervalNanos = 1e9 * writers / rate;
        byte[] payload = "x".repeat(payloadBytes).getBytes();
        try (Connection c = env.jdbc(schema); PreparedStatement insert = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, 'BenchEvent', ?)
                """)) {
            connected.countDown();
            long start = started.get(); // a plain writer thread, waiting for the others to connect
            for (long i = writer; i < total; i += writers) {
                long due = start + (long) (i / (double) writers * intervalNanos);
                long wait = due - System.nanoTime();
                if (wait > 0) { // a plain writer thread pacing the offered rate
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // the harness's own writer thread
                }
                UUID id = UUID.randomUUID();
                insert.setObject(1, id);
                insert.setString(2, topic);
                insert.setString(3, "key-" + (i % KEYS));
                insert.setBytes(4, payload);
                insert.executeUpdate();
                committedAt.put(id.toString(), System.nanoTime());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The commit times of the rows one run offered, and the consumer that saw them arrive. */
    public final class Run {

        private final Map<String, Long> committedAt;
        private final double offeredPerSecond;
        private final long start;
        private final Confirmations confirmed;

        Run(Map<String, Long> committedAt, double offeredPerSecond, long start, Confirmations confirmed) {
            this.committedAt = committedAt;
            this.offeredPerSecond = offeredPerSecond;
            this.start = start;
            this.confirmed = confirmed;
        }

        /** Rows committed. */
        public int offered() {
            return committedAt.size();
        }

        /**
         * Prints where the rows' time went (their own timestamps, the slowest rows' segments, per-window
         * percentiles) and returns the RESULT {@code relay-latency}.
         */
        public RelayLatency result(Common common) throws SQLException {
            printRowTimes();
            System.out.println(LatencyTail.describe(tailRows(), 0.01));
            List<Double> latencies = new ArrayList<>();
            Map<Long, List<Double>> byWindow = new TreeMap<>();
            long lost = 0;
            for (Map.Entry<String, Long> e : committedAt.entrySet()) {
                Long seen = confirmed.firstSeenNanos(e.getKey());
                if (seen == null) {
                    lost++;
                } else {
                    double ms = Math.max(0, seen - e.getValue()) / 1e6;
                    latencies.add(ms);
                    byWindow.computeIfAbsent((e.getValue() - start) / WINDOW_NANOS, w -> new ArrayList<>()).add(ms);
                }
            }
            printWindows(byWindow);
            Collections.sort(latencies);
            RelayLatency.Delivered delivered = deliveredLatency();
            System.out.printf(Locale.ROOT, "latency of the %d measured rows, p50/p95/p99/max ms: consumer-side (commit"
                    + " to arrival) %.1f/%.1f/%.1f/%.1f; by the rows' delivered_at - created_at (%d rows)"
                    + " %.1f/%.1f/%.1f/%.1f%n", committedAt.size(), percentile(latencies, 0.50),
                    percentile(latencies, 0.95), percentile(latencies, 0.99),
                    latencies.isEmpty() ? 0 : latencies.getLast(), delivered.deliveredN(), delivered.deliveredP50Ms(),
                    delivered.deliveredP95Ms(), delivered.deliveredP99Ms(), delivered.deliveredMaxMs());
            return new RelayLatency(common, Round.one(offeredPerSecond), committedAt.size(),
                    Round.one(percentile(latencies, 0.50)), Round.one(percentile(latencies, 0.95)),
                    Round.one(percentile(latencies, 0.99)),
                    Round.one(latencies.isEmpty() ? 0 : latencies.getLast()), lost, confirmed.duplicates(), null, null,
                    null, delivered, null);
        }

        /**
         * The measured rows' {@code delivered_at - created_at} percentiles (nearest rank, as the consumer-side ones),
         * read from the outbox by their ids: earlier phases' rows on the same topic do not count.
         */
        private RelayLatency.Delivered deliveredLatency() throws SQLException {
            try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                    SELECT count(*), percentile_disc(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY ms), max(ms)
                      FROM (SELECT extract(epoch FROM delivered_at - created_at) * 1000 AS ms
                              FROM outbox_message WHERE id = ANY(?) AND delivered_at IS NOT NULL) t
                    """)) {
                s.setArray(1, c.createArrayOf("uuid", committedAt.keySet().stream().map(UUID::fromString).toArray()));
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    long rows = r.getLong(1);
                    if (rows == 0) {
                        return new RelayLatency.Delivered(0, 0, 0, 0, 0);
                    }
                    Number[] p = (Number[]) r.getArray(2).getArray();
                    return new RelayLatency.Delivered(rows, Round.one(p[0].doubleValue()),
                            Round.one(p[1].doubleValue()), Round.one(p[2].doubleValue()), Round.one(r.getDouble(3)));
                }
            }
        }

        /** Each offered row that arrived, with its times for {@link LatencyTail}. */
        private List<LatencyTail.Row> tailRows() throws SQLException {
            long epochMicrosAtNanoZero = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now())
                    - System.nanoTime() / 1000;
            List<LatencyTail.Row> rows = new ArrayList<>();
            try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                    SELECT id::text, (extract(epoch FROM created_at) * 1e6)::bigint,
                           (extract(epoch FROM last_attempt_at) * 1e6)::bigint
                      FROM outbox_message WHERE topic = ? AND last_attempt_at IS NOT NULL
                    """)) {
                s.setString(1, topic);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        String id = r.getString(1);
                        Long committed = committedAt.get(id);
                        Long arrived = confirmed.firstSeenNanos(id);
                        Long sent = confirmed.sentAtMillis(id);
                        if (committed != null && arrived != null && sent != null) {
                            rows.add(new LatencyTail.Row(r.getLong(2), epochMicrosAtNanoZero + committed / 1000,
                                    r.getLong(3), sent * 1000, epochMicrosAtNanoZero + arrived / 1000));
                        }
                    }
                }
            }
            return rows;
        }

        /**
         * Where a row's time went, from its own timestamps: insert to claim ({@code created_at} to the last claim's
         * {@code last_attempt_at}) and claim to the Deliver write ({@code delivered_at}), p50/p99 in ms.
         */
        private void printRowTimes() throws SQLException {
            try (Connection c = env.jdbc(schema); PreparedStatement s = c.prepareStatement("""
                    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY w), percentile_cont(0.99) WITHIN GROUP (ORDER BY w),
                           percentile_cont(0.5) WITHIN GROUP (ORDER BY d), percentile_cont(0.99) WITHIN GROUP (ORDER BY d)
                      FROM (SELECT extract(epoch FROM last_attempt_at - created_at) * 1000 AS w,
                                   extract(epoch FROM delivered_at - last_attempt_at) * 1000 AS d
                              FROM outbox_message WHERE status = 'DELIVERED' AND topic = ?) t
                    """)) {
                s.setString(1, topic);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        System.out.printf(Locale.ROOT, "row times: insert-to-claim p50 %.1f p99 %.1f ms;"
                                + " claim-to-delivered p50 %.1f p99 %.1f ms%n", r.getDouble(1), r.getDouble(2),
                                r.getDouble(3), r.getDouble(4));
                    }
                }
            }
        }
    }

    /** p50/p99/max of the rows committed in each 3 s window, so a tail can be told apart from a stall. */
    private static void printWindows(Map<Long, List<Double>> byWindow) {
        StringBuilder line = new StringBuilder("latency by 3 s window of commit (p50/p99/max ms):");
        byWindow.forEach((window, values) -> {
            Collections.sort(values);
            line.append(String.format(Locale.ROOT, " %ds:%.0f/%.0f/%.0f", window * 3, percentile(values, 0.5),
                    percentile(values, 0.99), values.getLast()));
        });
        System.out.println(line);
    }

    private static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }
}
