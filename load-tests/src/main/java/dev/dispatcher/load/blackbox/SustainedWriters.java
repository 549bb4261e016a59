package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.mode.Keys;
import dev.dispatcher.load.mode.Sustained;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * relay-sustained's SQL writers: {@code --writers} threads commit multi-row INSERT transactions of {@code
 * --batch-rows} rows straight into the service's {@code outbox_message} on a fixed schedule (batch {@code s} is due
 * at {@code start + s x batch-rows / rate}, writer {@code w} takes every {@code s} with {@code s mod writers = w}),
 * so the offered rate does not follow the service's pace; a writer that falls behind catches up without skipping.
 *
 * <p>Ids are not stored: row {@code i} of the run (batch {@code i / batch-rows}) has id {@code UUID(run, i)}, so
 * the consumer maps an id back to its row and its batch's commit time ({@link #index}, {@link #committedAtNanos})
 * and a run of any length is checked with a bit per row. Writer {@code w} owns the keys {@code key-k} with {@code k
 * mod writers = w}: a key's rows commit in the order of their {@code seq}, as per-key order requires of writers.
 */
final class SustainedWriters {

    private static final String INSERT = """
            INSERT INTO outbox_message (id, topic, message_key, event_type, payload)
            SELECT r.id, ?, r.message_key, 'BenchEvent', ?
              FROM unnest(?::uuid[], ?::text[]) AS r(id, message_key)
            """;

    private final BenchEnvironment env;
    private final String schema;
    private final String topic;
    private final Sustained mode;
    private final long run = ThreadLocalRandom.current().nextLong();
    private final long batches;
    private final double intervalNanos;
    /** Each batch's commit time ({@link System#nanoTime()}), 0 until it committed. */
    private final AtomicLongArray committedAt;
    private final AtomicLong committedRows = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    SustainedWriters(BenchEnvironment env, String schema, String topic, Sustained mode) {
        this.env = env;
        this.schema = schema;
        this.topic = topic;
        this.mode = mode;
        this.batches = (long) mode.minutes() * 60 * mode.rate() / mode.batchRows();
        this.intervalNanos = 1e9 * mode.batchRows() / mode.rate();
        this.committedAt = new AtomicLongArray(Math.toIntExact(batches));
    }

    /** Rows the schedule holds. */
    long plannedRows() {
        return batches * mode.batchRows();
    }

    /**
     * Connects every writer, then starts the schedule at the returned {@link System#nanoTime()}: connecting after
     * the clock started would make the first batches late and their catch-up a burst.
     */
    long start() throws InterruptedException {
        CountDownLatch connected = new CountDownLatch(mode.writers());
        CompletableFuture<Long> started = new CompletableFuture<>();
        for (int w = 0; w < mode.writers(); w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().name("bench-sustained-writer-" + w)
                    .start(() -> write(writer, connected, started)));
        }
        connected.await();
        long start = System.nanoTime();
        started.complete(start);
        return start;
    }

    private void write(int writer, CountDownLatch connected, CompletableFuture<Long> started) {
        byte[] payload = "x".repeat(mode.payloadBytes()).getBytes(StandardCharsets.UTF_8);
        int rows = mode.batchRows();
        UUID[] ids = new UUID[rows];
        String[] keys = new String[rows];
        try (Connection c = env.jdbc(schema); PreparedStatement insert = c.prepareStatement(INSERT)) {
            insert.setString(1, topic);
            insert.setBytes(2, payload);
            connected.countDown();
            long start = started.get(); // a plain writer thread, waiting for the others to connect
            for (long s = writer; s < batches && failure.get() == null; s += mode.writers()) {
                long wait = start + (long) (s * intervalNanos) - System.nanoTime();
                if (wait > 0) { // the harness's own writer thread pacing the offered rate
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                for (int j = 0; j < rows; j++) {
                    long index = s * rows + j;
                    ids[j] = new UUID(run, index);
                    keys[j] = key(writer, index);
                }
                insert.setArray(3, c.createArrayOf("uuid", ids));
                insert.setArray(4, c.createArrayOf("text", keys));
                insert.executeUpdate();
                committedAt.set((int) s, System.nanoTime());
                committedRows.addAndGet(rows);
            }
        } catch (Exception e) {
            failure.compareAndSet(null, e);
            connected.countDown();
        }
    }

    /** Row {@code index}'s key: one of writer {@code writer}'s keys, or null without keys. */
    private String key(int writer, long index) {
        return switch (mode.keys()) {
            case Keys.Spread(int count) -> {
                int owned = (count - writer + mode.writers() - 1) / mode.writers();
                yield "key-" + (writer + mode.writers() * (index % owned));
            }
            case Keys.None none -> null;
            case Keys.Hot hot -> throw new IllegalStateException("relay-sustained refuses --keys hot");
        };
    }

    /** Rows committed so far. */
    long committedRows() {
        return committedRows.get();
    }

    /** The first writer's failure, or null. */
    Exception failure() {
        return failure.get();
    }

    /** Waits until every writer finished its schedule (or stopped on a failure, which is thrown). */
    void awaitEnd() throws Exception {
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a writer failed", failure.get());
        }
    }

    /** The row of this run that {@code id} names, or -1 for an id of no row of this run. */
    long index(UUID id) {
        long index = id.getLeastSignificantBits();
        return id.getMostSignificantBits() == run && index >= 0 && index < plannedRows() ? index : -1;
    }

    /** When row {@code index}'s batch committed ({@link System#nanoTime()}), 0 if it has not (yet). */
    long committedAtNanos(long index) {
        return committedAt.get((int) (index / mode.batchRows()));
    }

    /** Rows of committed batches whose bit in {@code seen} is clear: written, never confirmed. */
    long unseen(BitSet seen) {
        long missing = 0;
        int rows = mode.batchRows();
        for (int s = 0; s < batches; s++) {
            if (committedAt.get(s) != 0) {
                int from = s * rows;
                missing += rows - seen.get(from, from + rows).cardinality();
            }
        }
        return missing;
    }
}
