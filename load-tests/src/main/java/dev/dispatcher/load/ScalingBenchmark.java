package dev.dispatcher.load;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.outbox.OutboxListener;
import dev.dispatcher.app.outbox.Relay;
import dev.dispatcher.domain.Queue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code scale}: the same drain of N seeded rows by 1, 2 and 4 relay instances on one database, each instance in its
 * own JVM (this class's {@link #main}, started with this JVM's class path), as separate services would run.
 * Each instance first drains its own warm-up rows untimed, in rounds until its JVM has nearly stopped compiling
 * ({@link JitWarmUp}), then all start together; the time runs until the
 * harness's consumer has seen all N ids. Prints the curve and, per step, the Applied Deliver transitions counted
 * by the instances' own metrics and summed (must equal N: no row delivered twice by two instances). RESULT
 * {@code relay-drain} with {@code instances}, for the largest step, and the whole curve.
 *
 * <p>Runs with {@code java -cp} on the module's class path or with {@code exec:java} ({@link #childClassPath}).
 */
final class ScalingBenchmark {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

    private ScalingBenchmark() {
    }

    static String run(BenchEnvironment env, BenchOptions o) throws Exception {
        return RelayBenchmark.json(ScaleCurve.run(env, o, "scale", k -> step(env, o, k)));
    }

    private static ScaleCurve.Step step(BenchEnvironment env, BenchOptions o, int k) throws Exception {
        String schema = env.schema("scale");
        String topic = "bench-" + schema;
        env.createTopic(topic, 6);
        List<String> warmSchemas = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            String warm = env.schema("scalewarm");
            env.createTopic("bench-" + warm, 6);
            warmSchemas.add(warm);
        }
        Set<String> ids = env.seed(schema, topic, o, o.n());
        try (Confirmations confirmed = new Confirmations(env.kafka.bootstrapServers(), topic, 6,
                Confirmations.Fetch.THROUGHPUT)) {
            CountDownLatch ready = new CountDownLatch(k);
            AtomicLong applied = new AtomicLong();
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                Process p = child(env, o, schema, warmSchemas.get(i), "relay-" + i);
                children.add(p);
                Thread reader = new Thread(() -> readChild(p, ready, applied));
                reader.setDaemon(true);
                reader.start();
            }
            if (!ready.await(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                children.forEach(Process::destroy);
                throw new IllegalStateException("relay instances not ready within " + READY_TIMEOUT);
            }
            for (String warm : warmSchemas) {
                env.drop(warm); // their relays have stopped; no autovacuum of warm-up rows during the measured drain
            }
            Instant wallStart = Instant.now();
            long start = System.nanoTime();
            for (Process p : children) {
                OutputStream in = p.getOutputStream();
                in.write("GO\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            confirmed.awaitDistinct(o.n(), Duration.ofMinutes(10), () -> { });
            double rate = o.n() / ((System.nanoTime() - start) / 1e9);
            Instant wallEnd = Instant.now();
            for (Process p : children) {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroy();
                }
            }
            return new ScaleCurve.Step(k, rate, applied.get(), confirmed.lost(ids), confirmed.duplicates(),
                    LatencyTail.CLOCK.format(wallStart) + " to " + LatencyTail.CLOCK.format(wallEnd));
        }
    }

    private static Process child(BenchEnvironment env, BenchOptions o, String schema, String warmSchema,
            String workerId) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", childClassPath(), ScalingBenchmark.class.getName(),
                env.postgres.jdbcUrl(), env.postgres.username(), env.postgres.password(), env.kafka.bootstrapServers(),
                schema, warmSchema, workerId,
                "drain", "--ordering", o.orderingName(), "--batch-size", Integer.toString(o.batchSize()),
                "--in-flight", Integer.toString(o.inFlight()), "--concurrency", Integer.toString(o.concurrency()),
                "--claim-linger-ms", Long.toString(o.claimLinger().toMillis())));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /**
     * The class path the instances run on: the one this class was loaded from. Under {@code exec:java} that is the
     * plugin's class loader, while {@code java.class.path} names only Maven's launcher (the children then failed to
     * start, reported as "relay instances not ready"); under {@code java -cp} the two are the same.
     */
    static String childClassPath() {
        if (ScalingBenchmark.class.getClassLoader() instanceof URLClassLoader loader && loader.getURLs().length > 0) {
            List<String> entries = new ArrayList<>();
            for (URL url : loader.getURLs()) {
                try {
                    entries.add(Path.of(url.toURI()).toString());
                } catch (URISyntaxException | IllegalArgumentException e) {
                    throw new IllegalStateException("class path entry " + url + " is not a file", e);
                }
            }
            return String.join(File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }

    /** Reads a child's output: its READY and APPLIED lines; everything else (its logs) is dropped. */
    private static void readChild(Process p, CountDownLatch ready, AtomicLong applied) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.equals("READY")) {
                    ready.countDown();
                } else if (line.startsWith("APPLIED ")) {
                    applied.addAndGet(Long.parseLong(line.substring("APPLIED ".length()).trim()));
                } else if (line.startsWith("FAILED")) {
                    System.out.println("instance: " + line);
                }
            }
        } catch (Exception e) {
            System.out.println("instance output lost: " + e);
        }
    }

    /**
     * One relay instance: {@code pgUrl user password bootstrap schema warmSchema workerId drain --option value...}.
     * Drains rows it seeds into {@code warmSchema}, untimed, in rounds until this JVM has nearly stopped compiling
     * ({@link JitWarmUp}), prints READY, waits for GO on its input, drains {@code schema} until no
     * live row is left, and prints {@code APPLIED <n>}: the Deliver transitions its metrics counted as applied.
     */
    public static void main(String[] args) throws Exception {
        BenchOptions o = BenchOptions.parse(Arrays.copyOfRange(args, 7, args.length));
        try (BenchEnvironment env = new BenchEnvironment(args[0], args[1], args[2], args[3])) {
            int perRound = Math.max(1, o.warmup() / 2);
            JitWarmUp.untilCompiled(args[6], JitWarmUp.thisJvm(), () -> {
                env.insertRows(args[5], "bench-" + args[5], o, perRound);
                drainUntilEmpty(env, o, pool(env, o, args[5], args[6]), args[5], args[6], WARM_UP_PROBE);
                return perRound;
            });
            // connected before the clock starts, as a running service is: opened at the first claim, every
            // instance's connections were forked at once inside the measured phase
            ConnectionPool measured = pool(env, o, args[4], args[6]);
            measured.warmup().block(READY_TIMEOUT); // the instance's main thread, before its relay starts
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String go = in.readLine();
            if (!"GO".equals(go)) {
                System.out.println("FAILED expected GO, got " + go);
                System.exit(1);
            }
            System.out.println("APPLIED " + drainUntilEmpty(env, o, measured, args[4], args[6], MEASURED_PROBE));
        } catch (Exception e) {
            System.out.println("FAILED " + e);
            throw e;
        }
        System.exit(0);
    }

    /** How often an instance looks for live rows while it warms up: the round ends soon after its rows do. */
    private static final Duration WARM_UP_PROBE = Duration.ofMillis(50);
    /**
     * How often an instance looks for live rows in the measured drain, which the harness's consumer times, not the
     * instances: each probe walks the live index's entries of rows delivered since the last vacuum (2-26 ms a probe
     * in a drain), and every 50 ms in each instance that took a PostgreSQL backend per instance a fifth to half of
     * the time, more the more instances ran.
     */
    private static final Duration MEASURED_PROBE = Duration.ofSeconds(1);

    /** An instance's connections to {@code schema}: two per in-flight batch and four more. */
    private static ConnectionPool pool(BenchEnvironment env, BenchOptions o, String schema, String workerId) {
        return env.pool(schema, workerId, o.inFlight() * 2 + 4);
    }

    /**
     * Runs a relay on {@code pool}'s {@code schema} until its backlog is empty, looking every {@code probeEvery};
     * returns the Deliver transitions it applied.
     */
    private static long drainUntilEmpty(BenchEnvironment env, BenchOptions o, ConnectionPool pool, String schema,
            String workerId, Duration probeEvery) throws Exception {
        DispatcherMetrics metrics = new DispatcherMetrics(new SimpleMeterRegistry());
        Relay relay = RelayBenchmark.newRelay(env, pool, workerId, o, o.batchSize(), o.concurrency(), o.inFlight(),
                metrics);
        OutboxListener listener = new OutboxListener(pool, schema, relay::wake, Duration.ofSeconds(10));
        listener.start();
        relay.start();
        if (!env.awaitNoBacklog(schema, probeEvery, Duration.ofMinutes(10))) {
            throw new IllegalStateException("backlog of " + schema + " not drained within 10 minutes");
        }
        relay.stop().block(Duration.ofSeconds(30));
        listener.stop();
        env.release(pool);
        return metrics.totals(Queue.OUTBOX).succeeded();
    }
}
