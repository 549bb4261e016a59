package dev.dispatcher.load;

import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.outbox.OutboxListener;
import dev.dispatcher.app.outbox.Relay;
import dev.dispatcher.app.outbox.RelayBreaker;
import dev.dispatcher.app.outbox.RelaySettings;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Relay and inbox benchmarks. Modes:
 * <ul>
 *   <li>{@code drain}: seed N rows directly, start the relay, time until a consumer has seen all N ids; in the same
 *       run, the naive baseline relay drains up to 20,000 rows and the fixed PostgreSQL-only reference ceiling
 *       ({@link PgCeiling}: claim and complete 500 rows, 2 loops, no Kafka, never the relay's own statements) is
 *       measured on N rows of its own table. With {@code --poison-topic} it drains N rows again with one row for a
 *       missing topic first among them ({@code poison_msgs_per_s}, {@code ratio_to_clean}); with {@code
 *       --failing-key}, 64 keys whose {@code key-0} fails on every attempt, the other 63 keys' rate beside a drain of
 *       those 63 keys alone ({@code failing_key_msgs_per_s}, {@code failing_key_clean_msgs_per_s}, {@code
 *       failing_key_ratio_to_clean}); {@link IsolationDrains}. RESULT {@code relay-drain}.</li>
 *   <li>{@code latency}: one-row transactions at a fixed offered rate, commit-to-Kafka latency percentiles from the
 *       consumer. RESULT {@code relay-latency}.</li>
 *   <li>{@code sweep}: batch size x publish concurrency x in-flight batches, a table, RESULT {@code relay-sweep}
 *       with the best row.</li>
 *   <li>{@code inbox}: an inbox consumer drains N records through a webhook or an in-process SQL handler,
 *       against the receiver's own ceiling in the same run ({@link InboxBenchmark}). RESULT {@code inbox-drain}.</li>
 *   <li>{@code overload}: the service jar in 256 MB, PostgreSQL frozen, 300 concurrent 1 MiB posts: every one
 *       answered, no {@code OutOfMemoryError}, accepted again after the thaw ({@link IngestOverload}). RESULT
 *       {@code ingest-overload}.</li>
 *   <li>{@code large-drain}: the service jar in 512 MB drains N rows of 2 MiB inserted by SQL ({@link
 *       LargePayloadDrain}). RESULT {@code relay-large-payload}.</li>
 * </ul>
 * PostgreSQL runs durably (fsync and synchronous_commit on); the last line printed is always the RESULT.
 */
public final class RelayBenchmark {

    private RelayBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        BenchOptions parsed = BenchOptions.parse(args);
        String result;
        try (BenchEnvironment env = new BenchEnvironment(parsed.pgUrl(), parsed.pgUser(), parsed.pgPassword(),
                parsed.bootstrap())) {
            BenchOptions o = warmUp(env, parsed);
            result = switch (o.mode()) {
                case "drain" -> drain(env, o);
                case "latency" -> latency(env, o);
                case "sweep" -> sweep(env, o);
                case "inbox" -> InboxBenchmark.run(env, o);
                case "scale" -> ScalingBenchmark.run(env, o);
                case "blackbox" -> BlackBoxDrain.run(env, o);
                case "blackbox-scale" -> BlackBoxScale.run(env, o);
                case "blackbox-latency" -> BlackBoxLatency.run(env, o);
                case "reference-latency" -> ReferenceLatency.run(env, o);
                case "overload" -> IngestOverload.run(env, o);
                case "large-drain" -> LargePayloadDrain.run(env, o);
                default -> throw new IllegalArgumentException("unknown mode " + o.mode()
                        + ": drain|latency|sweep|inbox|scale|blackbox|blackbox-scale|blackbox-latency"
                        + "|reference-latency|overload|large-drain");
            };
        }
        System.out.println("RESULT " + result);
        System.exit(0);
    }

    /**
     * Drains {@code --warmup} rows (own schema and topic, untimed) before the measured phases, so the figures are
     * a running relay's, not the JIT compiler's: in a cold JVM the first few seconds of a drain ran at a tenth of
     * the steady rate. The drain repeats until this JVM has nearly stopped compiling ({@link JitWarmUp}); returns
     * the options with the rows really drained as {@code warmup_n}. The latency mode then also offers its own load
     * for {@link #LATENCY_WARMUP} on a schema of its own. The naive baseline and the ceiling run later in the same,
     * warm JVM.
     */
    private static BenchOptions warmUp(BenchEnvironment env, BenchOptions o) throws Exception {
        if (o.warmup() > 0 && List.of("drain", "latency", "sweep").contains(o.mode())) { // the others warm their own
            long drained = JitWarmUp.untilCompiled("drain", JitWarmUp.thisJvm(), () -> {
                DrainRun w = relayDrain(env, o, o.batchSize(), o.concurrency(), o.inFlight(), o.warmup());
                System.out.printf(Locale.ROOT, "warm-up: %d messages at %.0f msgs/s (not reported)%n", w.n(),
                        w.msgsPerSecond());
                env.drop(w.schema()); // no autovacuum of warm-up rows during the measured phases
                return w.n();
            });
            if (o.mode().equals("latency")) {
                // a drain compiles the batch path; a trickle runs other code (wake-ups, small claims, lingers)
                latency(env, o.withDuration(LATENCY_WARMUP));
                System.out.printf(Locale.ROOT, "warm-up: %d s of the same load at %d/s (not reported)%n",
                        LATENCY_WARMUP.toSeconds(), o.rate());
            }
            return o.withWarmup((int) drained);
        }
        return o;
    }

    /** How long the latency mode offers its load, untimed, after the warm-up drain. */
    private static final Duration LATENCY_WARMUP = Duration.ofSeconds(10);

    // ------------------------------------------------------------------ drain

    /** One relay drain of N seeded rows. */
    record DrainRun(int n, double msgsPerSecond, long lost, long duplicates, String schema) {
    }

    static String drain(BenchEnvironment env, BenchOptions o) throws Exception {
        double ceilingBefore = PgCeiling.measure(env, env.schema("ceiling"), o.n());
        DrainRun relay = relayDrain(env, o, o.batchSize(), o.concurrency(), o.inFlight(), o.n());
        IsolationDrains isolation = IsolationDrains.measure(env, o, relay);
        PgCeiling.Bracket ceiling = new PgCeiling.Bracket(ceilingBefore,
                PgCeiling.measure(env, env.schema("ceiling"), o.n()));
        int baselineN = Math.min(o.n(), 20_000);
        double baseline = o.baseline() ? naiveDrain(env, o, baselineN) : 0;
        Map<String, Object> r = common(env, o, "relay-drain");
        r.put("n", relay.n());
        r.put("instances", 1);
        r.put("msgs_per_s", round(relay.msgsPerSecond()));
        r.put("baseline_msgs_per_s", round(baseline));
        r.put("baseline_n", baselineN);
        r.put("pg_ceiling_msgs_per_s", round(ceiling.higher()));
        r.put("pg_ceiling_runs", ceiling.runs());
        r.put("ratio_to_baseline", baseline > 0 ? round(relay.msgsPerSecond() / baseline) : 0);
        r.put("ratio_to_ceiling", round2(relay.msgsPerSecond() / ceiling.higher()));
        r.put("lost", relay.lost() + isolation.lost());
        r.put("duplicates", relay.duplicates() + isolation.duplicates());
        r.putAll(isolation.fields());
        r.put("batch_size", o.batchSize());
        r.put("publish_concurrency", o.concurrency());
        r.put("max_in_flight_batches", o.inFlight());
        return json(r);
    }

    static DrainRun relayDrain(BenchEnvironment env, BenchOptions o, int batch, int concurrency, int inFlight, int n)
            throws Exception {
        return relayDrain(env, o, batch, concurrency, inFlight, n, DrainShape.plain(o));
    }

    /**
     * How a drain's backlog is made and which of its rows are timed.
     *
     * @param keyExpression the SQL key of generated row {@code g} ({@link BenchOptions#keyExpression()})
     * @param poisonFirst whether one row for a missing topic (key {@code poison}) goes first, before the N rows
     * @param failingKey a key whose records fail on every attempt, its rows not timed; null for none
     */
    record DrainShape(String keyExpression, boolean poisonFirst, String failingKey) {

        static DrainShape plain(BenchOptions o) {
            return new DrainShape(o.keyExpression(), false, null);
        }
    }

    /**
     * One relay drain of {@code n} rows of {@code shape}: the rate of the timed rows (all but the failing key's) from
     * the relay's start until a consumer has seen each of them.
     */
    static DrainRun relayDrain(BenchEnvironment env, BenchOptions o, int batch, int concurrency, int inFlight, int n,
            DrainShape shape) throws Exception {
        String schema = env.schema("drain");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        String poison = shape.poisonFirst() ? env.insertPoison(schema, "bench-missing-" + schema) : null;
        env.insertRows(schema, topic, shape.keyExpression(), o.payloadBytes(), n);
        Set<String> ids = env.ids(schema, topic, shape.failingKey());
        int timed = ids.size();
        RecordPublisher publisher = shape.failingKey() == null ? env.publisher()
                : new FailingKeyPublisher(env.publisher(), shape.failingKey());
        try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            ConnectionPool pool = env.pool(schema, "bench-relay", inFlight * 2 + 4);
            Relay relay = newRelay(env, pool, "bench-relay", o, batch, concurrency, inFlight,
                    new DispatcherMetrics(new SimpleMeterRegistry()), publisher);
            OutboxListener listener = new OutboxListener(pool, schema, relay::wake, Duration.ofSeconds(10));
            listener.start();
            long start = System.nanoTime();
            relay.start();
            boolean all = confirmed.awaitDistinct(timed, Duration.ofMinutes(10), () -> progress("drain", start,
                    confirmed.distinct(), timed, env.backlog(schema)));
            long elapsed = System.nanoTime() - start;
            if (poison != null) {
                System.out.println("drain: the missing topic's row after the drain: " + env.describeRow(schema, poison));
            }
            relay.stop().block(Duration.ofSeconds(30)); // main thread of the harness: waiting is its job
            listener.stop();
            env.release(pool);
            Thread.sleep(500);
            double rate = timed / (elapsed / 1e9);
            System.out.printf(Locale.ROOT, "drain: %d messages in %.2f s = %.0f msgs/s (%s)%n", timed, elapsed / 1e9,
                    rate, all ? "all confirmed" : "NOT all confirmed");
            return new DrainRun(timed, rate, confirmed.lost(ids), confirmed.duplicates(), schema);
        }
    }

    /** A relay on {@code pool} with the benchmark's settings (retries fast and bounded), not started. */
    static Relay newRelay(BenchEnvironment env, ConnectionPool pool, String workerId, BenchOptions o, int batch,
            int concurrency, int inFlight, DispatcherMetrics metrics) {
        return newRelay(env, pool, workerId, o, batch, concurrency, inFlight, metrics, env.publisher());
    }

    /** A relay as the other {@code newRelay} makes it, publishing through {@code publisher}. */
    static Relay newRelay(BenchEnvironment env, ConnectionPool pool, String workerId, BenchOptions o, int batch,
            int concurrency, int inFlight, DispatcherMetrics metrics, RecordPublisher publisher) {
        RelaySettings settings = new RelaySettings(workerId, batch, inFlight, concurrency,
                Duration.ofSeconds(30), Duration.ofMillis(200), o.ordering(),
                RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(5), 2.0, Jitter.FULL, 10,
                        new SplittableRandom()), Duration.ofSeconds(30), o.claimLinger());
        return new Relay(OutboxStore.r2dbc(pool), publisher, settings, RelayBreaker.create(workerId), metrics,
                () -> false);
    }

    static double naiveDrain(BenchEnvironment env, BenchOptions o, int n) throws Exception {
        String schema = env.schema("naive");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        env.insertRows(schema, topic, o, n);
        long start = System.nanoTime();
        long sent = NaiveRelay.drain(env, schema);
        double rate = sent / ((System.nanoTime() - start) / 1e9);
        System.out.printf(Locale.ROOT, "baseline: naive relay drained %d messages at %.0f msgs/s%n", sent, rate);
        return rate;
    }

    // ------------------------------------------------------------------ latency

    static String latency(BenchEnvironment env, BenchOptions o) throws Exception {
        String schema = env.schema("latency");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                Confirmations.Fetch.LATENCY)) {
            ConnectionPool pool = env.pool(schema, "bench-relay", o.inFlight() * 2 + 4);
            RelaySettings settings = new RelaySettings("bench-relay", o.batchSize(), o.inFlight(), o.concurrency(),
                    Duration.ofSeconds(30), Duration.ofMillis(200), o.ordering(),
                    RetryPolicy.defaults(new SplittableRandom()), Duration.ofSeconds(30), o.claimLinger());
            SimpleMeterRegistry relayRegistry = new SimpleMeterRegistry();
            Relay relay = new Relay(OutboxStore.r2dbc(pool), env.publisher(), settings, RelayBreaker.create("bench"),
                    new DispatcherMetrics(relayRegistry), () -> false);
            OutboxListener listener = new OutboxListener(pool, schema, relay::wake, Duration.ofSeconds(10));
            listener.start();
            relay.start();
            Thread.sleep(1000); // main thread: let the relay and listener connect before offering load
            LatencyRun run = offer(env, schema, topic, o, confirmed);
            relay.stop().block(Duration.ofSeconds(30)); // main thread
            listener.stop();
            printRelayView(relayRegistry);
            return json(run.result(env, o, schema, topic));
        }
    }

    /** Commit times of the rows one latency run offered, and the consumer that saw them arrive. */
    record LatencyRun(Map<String, Long> committedAt, double offeredPerSecond, long start, Confirmations confirmed) {

        /** Prints the rows' own times and the windows; the RESULT fields of {@code relay-latency}. */
        Map<String, Object> result(BenchEnvironment env, BenchOptions o, String schema, String topic)
                throws Exception {
            printRowTimes(env, schema, topic);
            System.out.println(LatencyTail.describe(tailRows(env, schema, topic), 0.01));
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
                    byWindow.computeIfAbsent((e.getValue() - start) / LATENCY_WINDOW_NANOS, w -> new ArrayList<>())
                            .add(ms);
                }
            }
            printLatencyWindows(byWindow);
            Collections.sort(latencies);
            Map<String, Object> r = common(env, o, "relay-latency");
            r.put("offered_per_s", round(offeredPerSecond));
            r.put("n", committedAt.size());
            r.put("p50_ms", round(percentile(latencies, 0.50)));
            r.put("p95_ms", round(percentile(latencies, 0.95)));
            r.put("p99_ms", round(percentile(latencies, 0.99)));
            r.put("max_ms", round(latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1)));
            r.put("lost", lost);
            r.put("duplicates", confirmed.duplicates());
            return r;
        }

        /** Each offered row that arrived, with its times for {@link LatencyTail}. */
        private List<LatencyTail.Row> tailRows(BenchEnvironment env, String schema, String topic) throws SQLException {
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
    }

    /**
     * Offers {@code --rate} one-row transactions a second for {@code --duration-s} into {@code schema}'s outbox
     * with {@code topic}, from writer threads, and waits (at most a minute) until {@code confirmed} saw them all.
     */
    static LatencyRun offer(BenchEnvironment env, String schema, String topic, BenchOptions o,
            Confirmations confirmed) throws Exception {
        Map<String, Long> committedAt = new ConcurrentHashMap<>();
        int writers = Math.max(4, o.rate() / 100);
        long total = (long) o.rate() * o.duration().toSeconds();
        // every writer connects first: opening 20 connections after the clock started made the first writes late,
        // and their catch-up a burst that the first seconds' latency measured instead of the offered rate
        CountDownLatch connected = new CountDownLatch(writers);
        CompletableFuture<Long> started = new CompletableFuture<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            Thread t = new Thread(() -> offer(env, schema, topic, o, writer, writers, total, connected, started,
                    committedAt));
            t.start();
            threads.add(t);
        }
        connected.await();
        long start = System.nanoTime();
        started.complete(start);
        for (Thread t : threads) {
            t.join();
        }
        double offered = committedAt.size() / ((System.nanoTime() - start) / 1e9);
        confirmed.awaitAll(committedAt.keySet(), Duration.ofSeconds(60)); // the topic may hold earlier phases' rows
        return new LatencyRun(committedAt, offered, start, confirmed);
    }

    /** The width of one window of {@link #printLatencyWindows}. */
    private static final long LATENCY_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(3);

    /** p50/p99/max of the rows committed in each 3 s window, so a tail can be told apart from a stall. */
    private static void printLatencyWindows(Map<Long, List<Double>> byWindow) {
        StringBuilder line = new StringBuilder("latency by 3 s window of commit (p50/p99/max ms):");
        byWindow.forEach((window, values) -> {
            Collections.sort(values);
            line.append(String.format(Locale.ROOT, " %ds:%.0f/%.0f/%.0f", window * 3, percentile(values, 0.5),
                    percentile(values, 0.99), values.get(values.size() - 1)));
        });
        System.out.println(line);
    }

    /**
     * The relay's own view, to tell where latency goes: commit (row's created_at) to Kafka acknowledgement, and the
     * send alone, as mean and max of the relay's timers, and the batches it wrote.
     */
    private static void printRelayView(SimpleMeterRegistry registry) {
        Timer commit = registry.find("dispatcher.commit.to.publish").timer();
        Timer send = registry.find("dispatcher.publish.latency").timer();
        if (commit != null && send != null) {
            System.out.printf(Locale.ROOT, "relay view: commit-to-ack mean %.1f ms max %.0f ms; send mean %.1f ms max %.0f ms"
                    + " over %d sends%n", commit.mean(TimeUnit.MILLISECONDS), commit.max(TimeUnit.MILLISECONDS),
                    send.mean(TimeUnit.MILLISECONDS), send.max(TimeUnit.MILLISECONDS), send.count());
        }
    }

    /**
     * Where a row's time went, from its own timestamps: insert to claim ({@code created_at} to the last claim's
     * {@code last_attempt_at}) and claim to the Deliver write ({@code delivered_at}), p50/p99 in ms.
     */
    private static void printRowTimes(BenchEnvironment env, String schema, String topic) throws SQLException {
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
                    System.out.printf(Locale.ROOT, "row times: insert-to-claim p50 %.1f p99 %.1f ms; claim-to-delivered"
                            + " p50 %.1f p99 %.1f ms%n", r.getDouble(1), r.getDouble(2), r.getDouble(3), r.getDouble(4));
                }
            }
        }
    }

    /** One writer thread: one-row transactions, paced to its share of the offered rate. */
    private static void offer(BenchEnvironment env, String schema, String topic, BenchOptions o, int writer,
            int writers, long total, CountDownLatch connected, CompletableFuture<Long> started,
            Map<String, Long> committedAt) {
        double intervalNanos = 1e9 * writers / o.rate();
        byte[] payload = "x".repeat(o.payloadBytes()).getBytes();
        try (Connection c = env.jdbc(schema); PreparedStatement insert = c.prepareStatement("""
                INSERT INTO outbox_message (id, topic, message_key, event_type, payload) VALUES (?, ?, ?, 'BenchEvent', ?)
                """)) {
            connected.countDown();
            long start = started.get(); // a plain writer thread, waiting for the others to connect
            for (long i = writer; i < total; i += writers) {
                long due = start + (long) (i / (double) writers * intervalNanos);
                long wait = due - System.nanoTime();
                if (wait > 0) { // a plain writer thread pacing the offered rate
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                UUID id = UUID.randomUUID();
                insert.setObject(1, id);
                insert.setString(2, topic);
                insert.setString(3, "key-" + (i % 64));
                insert.setBytes(4, payload);
                insert.executeUpdate();
                committedAt.put(id.toString(), System.nanoTime());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static double percentile(List<Double> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    // ------------------------------------------------------------------ sweep

    static String sweep(BenchEnvironment env, BenchOptions o) throws Exception {
        int[] batches = o.n() <= 5000 ? new int[] {100, 500} : new int[] {250, 500, 1000};
        int[] concurrencies = o.n() <= 5000 ? new int[] {64} : new int[] {16, 64};
        int[] inFlights = o.n() <= 5000 ? new int[] {2, 4} : new int[] {2, 4, 8};
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%10s %12s %10s %12s %6s %6s", "batch", "concurrency", "in-flight",
                "msgs/s", "lost", "dups"));
        Map<String, Object> best = null;
        double bestRate = -1;
        for (int batch : batches) {
            for (int concurrency : concurrencies) {
                for (int inFlight : inFlights) {
                    DrainRun run = relayDrain(env, o, batch, concurrency, inFlight, o.n());
                    table.add(String.format(Locale.ROOT, "%10d %12d %10d %12.0f %6d %6d", batch, concurrency,
                            inFlight, run.msgsPerSecond(), run.lost(), run.duplicates()));
                    if (run.msgsPerSecond() > bestRate) {
                        bestRate = run.msgsPerSecond();
                        best = new LinkedHashMap<>();
                        best.put("batch_size", batch);
                        best.put("publish_concurrency", concurrency);
                        best.put("max_in_flight_batches", inFlight);
                        best.put("msgs_per_s", round(run.msgsPerSecond()));
                        best.put("lost", run.lost());
                        best.put("duplicates", run.duplicates());
                    }
                }
            }
        }
        System.out.println("sweep (" + o.n() + " messages each, ordering " + o.orderingName() + ", keys " + o.keys()
                + "):");
        table.forEach(System.out::println);
        Map<String, Object> r = common(env, o, "relay-sweep");
        r.put("n", o.n());
        r.putAll(best);
        return json(r);
    }

    // ------------------------------------------------------------------ output

    private static void progress(String phase, long start, long confirmed, long n, long backlog) {
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "%s: %6.1fs confirmed %d of %d, %.0f msgs/s, backlog %d%n", phase, seconds,
                confirmed, n, confirmed / seconds, backlog);
    }

    static Map<String, Object> common(BenchEnvironment env, BenchOptions o, String name) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("name", name);
        r.put("pg_fsync", env.fsync());
        r.put("brokers", 1);
        r.put("ordering", o.orderingName());
        r.put("keys", o.keys());
        r.put("payload_bytes", o.payloadBytes());
        r.put("warmup_n", o.warmup());
        return r;
    }

    /** Two decimals, for ratios below 1. */
    static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** One flat JSON object: strings quoted, everything else as its text. */
    public static String json(Map<String, Object> fields) {
        StringBuilder b = new StringBuilder("{");
        fields.forEach((k, v) -> {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(k).append("\":");
            b.append(v instanceof String s ? "\"" + s + "\"" : String.valueOf(v));
        });
        return b.append('}').toString();
    }
}
