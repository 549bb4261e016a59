package dev.dispatcher.load.blackbox;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

/**
 * The well-behaved producers of a hostile run: closed-loop clients, each posting one single message ({@code POST
 * /v1/messages} with the harness's API token, a fresh id, one of 64 keys) after the other from the harness's own
 * address, for a window. Each window reports the messages accepted ({@code 202}) per second and the latency of every
 * answer; the ids of all accepted messages are kept for the Kafka check. One virtual thread per producer.
 */
final class IngestProducers {

    /** Longest a single message may wait for its answer. */
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    private final HttpClient http;
    private final URI uri;
    private final RawHttp.Target target;
    private final String topic;
    private final Set<String> accepted = ConcurrentHashMap.newKeySet();

    IngestProducers(RawHttp.Target target, InetAddress from, String topic) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).localAddress(from)
                .connectTimeout(Duration.ofSeconds(10)).build();
        this.uri = URI.create(target.baseUrl() + "/v1/messages");
        this.target = target;
        this.topic = topic;
    }

    /** The body of message {@code id}: about 100 bytes, its key one of 64. */
    static String message(String id, String topic) {
        return "{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"key\":\"k" + Math.floorMod(id.hashCode(), 64)
                + "\",\"type\":\"HostileRun\",\"payload\":{\"note\":\"a well-behaved producer\"}}";
    }

    /** The payload's size in {@link #message}. */
    static int payloadBytes() {
        return "{\"note\":\"a well-behaved producer\"}".length();
    }

    /** Every id answered {@code 202} so far. */
    Set<String> accepted() {
        return accepted;
    }

    /**
     * {@code producers} producers posting for {@code window}; returns once every producer's last request (started
     * within the window) was answered.
     */
    Window run(int producers, Duration window) throws InterruptedException {
        StatusTally statuses = new StatusTally();
        AtomicLong acceptedNow = new AtomicLong();
        List<Future<long[]>> latencies = new ArrayList<>();
        long started = System.nanoTime();
        long deadline = started + window.toNanos();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int p = 0; p < producers; p++) {
                latencies.add(threads.submit(() -> produce(deadline, statuses, acceptedNow)));
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        LongStream.Builder all = LongStream.builder();
        for (Future<long[]> producer : latencies) {
            try {
                Arrays.stream(producer.get()).forEach(all);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a producer failed", e.getCause());
            }
        }
        long[] sorted = all.build().sorted().toArray();
        double p99Ms = sorted.length == 0 ? -1
                : sorted[Math.max(0, (int) Math.ceil(0.99 * sorted.length) - 1)] / 1000.0;
        return new Window(acceptedNow.get(), acceptedNow.get() / seconds, p99Ms, sorted.length, statuses);
    }

    /** One producer until {@code deadline}; returns the latency of each answer, in microseconds. */
    private long[] produce(long deadline, StatusTally statuses, AtomicLong acceptedNow) {
        LongStream.Builder micros = LongStream.builder();
        while (System.nanoTime() < deadline) {
            String id = UUID.randomUUID().toString();
            long start = System.nanoTime();
            int status;
            try {
                status = http.send(HttpRequest.newBuilder(uri).timeout(ANSWER_WITHIN)
                        .header("Authorization", target.bearer()).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(message(id, topic))).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                status = StatusTally.NO_ANSWER;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long micro = (System.nanoTime() - start) / 1000;
            statuses.add(status, micro / 1000);
            micros.add(micro);
            if (status == 202) {
                accepted.add(id);
                acceptedNow.incrementAndGet();
            }
        }
        return micros.build().toArray();
    }

    /**
     * One window's figures.
     *
     * @param accepted messages answered {@code 202}
     * @param msgsPerS those per second of the window (until its last answer)
     * @param p99Ms the 99th percentile latency of every answer (nearest rank), -1 without one
     * @param answers answers in the window
     * @param statuses the answers by status
     */
    record Window(long accepted, double msgsPerS, double p99Ms, long answers, StatusTally statuses) {
    }
}
