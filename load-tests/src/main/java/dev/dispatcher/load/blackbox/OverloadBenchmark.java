package dev.dispatcher.load.blackbox;

import dev.dispatcher.load.bench.BenchEnvironment;
import dev.dispatcher.load.bench.Progress;
import dev.dispatcher.load.bench.ServiceClient;
import dev.dispatcher.load.bench.ServiceProcess;
import dev.dispatcher.load.mode.Keys;
import dev.dispatcher.load.mode.Ordering;
import dev.dispatcher.load.mode.Overload;
import dev.dispatcher.load.result.Common;
import dev.dispatcher.load.result.IngestOverload;
import dev.dispatcher.testkit.EmbeddedPostgresServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code overload}: the service jar in a small heap ({@code -Xmx256m} unless {@code
 * -Ddispatcher.bench.service-jvm-options} says otherwise) on the harness's own embedded PostgreSQL, which is frozen
 * ({@code SIGSTOP} on every process of the server) while {@code --n} clients each post one single message of
 * {@code --payload-bytes} at once. Every request must be answered, none with more than a {@code 503} or {@code 429},
 * and the service's log must hold no {@code OutOfMemoryError}; after the thaw a new request must be accepted again.
 * Prints the answers by status, the slowest answer, the requests never answered and the time the service took to
 * accept again. RESULT {@code ingest-overload}.
 */
public final class OverloadBenchmark {

    /** The service's heap unless {@code -Ddispatcher.bench.service-jvm-options} says otherwise. */
    static final String DEFAULT_JVM_OPTIONS = "-Xmx256m";

    private OverloadBenchmark() {
    }

    private static final Pattern PROBLEM_TYPE = Pattern.compile("/problems/([a-z-]+)");

    /** Longest a request may wait for its answer: far beyond any bound of the service's own. */
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(120);

    public static IngestOverload run(BenchEnvironment env, Overload o) throws Exception {
        if (!(env.postgres() instanceof EmbeddedPostgresServer postgres)) {
            throw new IllegalArgumentException("overload freezes PostgreSQL's processes: it needs the embedded server,"
                    + " not --pg-url");
        }
        String schema = env.serviceSchema("overload");
        String topic = "overload-" + schema;
        env.createTopic(topic, 3);
        List<String> jvmOptions = Services.jvmOptions(DEFAULT_JVM_OPTIONS);
        // one body for every request: a JSON string payload that fits dispatcher.ingest.max-payload-size exactly
        byte[] body = ("{\"topic\":\"" + topic + "\",\"type\":\"Overload\",\"payload\":\""
                + "x".repeat(o.payloadBytes() - 2) + "\"}").getBytes(StandardCharsets.UTF_8);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try (ServiceProcess service = Services.start(env, new ServiceProcess.Launch.Jar(ServiceProcess.defaultJar()),
                jvmOptions, schema, o.serviceArgs(), "overload-service")) {
            ServiceClient client = service.client();
            System.out.printf(Locale.ROOT, "overload: %d requests of %d bytes%n", o.requests(), body.length);
            int warm = post(http, client, body).get(60, TimeUnit.SECONDS).statusCode();
            if (warm != 202) {
                throw new IllegalStateException("the service did not accept a first message: " + warm);
            }

            postgres.freeze();
            Answers answers;
            long thawedAt;
            try {
                answers = flood(http, client, body, o.requests());
            } finally {
                postgres.thaw();
                thawedAt = System.nanoTime();
            }
            long recoveredMs = -1;
            while (System.nanoTime() - thawedAt < Duration.ofSeconds(60).toNanos()) {
                if (post(http, client, body).get(60, TimeUnit.SECONDS).statusCode() == 202) {
                    recoveredMs = (System.nanoTime() - thawedAt) / 1_000_000;
                    break;
                }
                Thread.sleep(500); // the harness's main thread: waiting is its job
            }
            long oom = service.logLinesContaining("OutOfMemoryError");
            System.out.printf(Locale.ROOT, "overload: answers by status %s, by problem type %s, unanswered %d, slowest"
                    + " answer %d ms, p99 %d ms; after the thaw accepted again in %d ms; OutOfMemoryError lines in the"
                    + " log: %d; service alive: %s%n", answers.statuses, answers.problems, answers.unanswered,
                    answers.maxMillis(), answers.percentileMillis(0.99), recoveredMs, oom, service.isAlive());
            return new IngestOverload(Common.of(env.fsync(), Ordering.PER_KEY.text(), Keys.DEFAULT, o.payloadBytes(),
                    0, 0), o.requests(), o.requests() - answers.unanswered, answers.unanswered, answers.statuses,
                    answers.problems, answers.maxMillis(), answers.percentileMillis(0.99), recoveredMs, oom,
                    service.isAlive(), String.join(" ", jvmOptions));
        }
    }

    /** What the flood's requests got back: by status, by RFC 9457 problem type, and how long each took. */
    record Answers(Map<Integer, Long> statuses, Map<String, Long> problems, long unanswered, List<Long> millis) {

        long maxMillis() {
            return millis.isEmpty() ? -1 : millis.get(millis.size() - 1);
        }

        long percentileMillis(double p) {
            return millis.isEmpty() ? -1 : millis.get(Math.min(millis.size() - 1,
                    (int) Math.ceil(p * millis.size()) - 1));
        }
    }

    /** {@code n} posts at once; waits for each answer up to {@link #ANSWER_WITHIN}, printing progress. */
    private static Answers flood(HttpClient http, ServiceClient service, byte[] body, int n) {
        Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        Map<String, AtomicLong> problems = new ConcurrentHashMap<>();
        List<Long> millis = Collections.synchronizedList(new ArrayList<>());
        AtomicLong unanswered = new AtomicLong();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long started = System.nanoTime();
            all.add(post(http, service, body).handle((response, error) -> {
                if (error != null) {
                    unanswered.incrementAndGet();
                    System.out.println("overload: no answer: " + error);
                } else {
                    statuses.computeIfAbsent(response.statusCode(), s -> new AtomicLong()).incrementAndGet();
                    Matcher type = PROBLEM_TYPE.matcher(response.body());
                    problems.computeIfAbsent(type.find() ? type.group(1) : "-", t -> new AtomicLong())
                            .incrementAndGet();
                    millis.add((System.nanoTime() - started) / 1_000_000);
                }
                return null;
            }));
        }
        CompletableFuture<Void> done = CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        Progress progress = Progress.of("overload");
        while (!done.isDone()) {
            progress.maybePrint(() -> "answered " + millis.size() + " of " + n + ", unanswered " + unanswered.get());
            try {
                done.get(200, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // not all answered yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        Map<Integer, Long> byStatus = new TreeMap<>();
        statuses.forEach((status, count) -> byStatus.put(status, count.get()));
        Map<String, Long> byType = new TreeMap<>();
        problems.forEach((type, count) -> byType.put(type, count.get()));
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return new Answers(byStatus, byType, unanswered.get(), sorted);
    }

    private static CompletableFuture<HttpResponse<String>> post(HttpClient http, ServiceClient service,
            byte[] body) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/v1/messages"))
                .header("Authorization", "Bearer " + service.access().token())
                .header("Content-Type", "application/json")
                .timeout(ANSWER_WITHIN).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
