package dev.dispatcher.load.inprocess;

import dev.dispatcher.load.bench.Progress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * The local HTTP receiver of the inbox benchmark: answers every POST after a fixed delay (a fast downstream
 * service), optionally {@code 503} once for every {@code failEvery}-th id, and counts effects by
 * {@code Idempotency-Key}: an id answered {@code 2xx} twice is a duplicate effect (a retry after a {@code 503} is a
 * legitimate repeated call, not a duplicate). A failing key's records ({@code Message-Key-Base64}) are answered
 * {@code 503} every time. Non-blocking (reactor-netty): its delay is a timer, not a thread.
 * Path {@code /hook} counts; {@code /ceiling} only answers, for the ceiling measurement. It runs on event loops of
 * its own ({@link #loops()}, Reactor Netty's default count), which the ceiling's client shares: the global ones are
 * disposed whenever an in-process service stops, and the receiver outlives several. From {@link #countEachSecondFrom}
 * on it also counts each id's first {@code 2xx} per second, for a fresh service's ramp-up.
 */
public final class WebhookReceiver implements AutoCloseable {

    /** The longest span {@link #effectsEachSecond()} covers. */
    static final int MAX_SECONDS = 3_600;

    private final Duration delay;
    private final int failEvery;
    /** The {@code Message-Key-Base64} whose calls always fail, or null. */
    private volatile String failingKey;
    private final AtomicLong failingKeyCalls = new AtomicLong();
    private final Map<String, AtomicInteger> okById = new ConcurrentHashMap<>();
    private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong missingKey = new AtomicLong();
    /** First {@code 2xx} answers per second since {@link #origin}. */
    private final AtomicLongArray firstEffects = new AtomicLongArray(MAX_SECONDS);
    /** {@link System#nanoTime()} of second 0 of {@link #firstEffects}; {@link Long#MIN_VALUE}: not counting. */
    private volatile long origin = Long.MIN_VALUE;
    /** {@link System#nanoTime()} of the first {@code 2xx} since {@link #origin}; {@link Long#MIN_VALUE}: none yet. */
    private final AtomicLong firstEffectAt = new AtomicLong(Long.MIN_VALUE);
    private final LoopResources loops = LoopResources.create("bench-receiver");
    private final DisposableServer server;

    public WebhookReceiver(Duration delay, int failEvery) {
        this.delay = delay;
        this.failEvery = failEvery;
        this.server = HttpServer.create().runOn(loops).host("127.0.0.1").port(0)
                .handle((request, response) -> request.receive().aggregate().asByteArray()
                        .defaultIfEmpty(new byte[0])
                        .flatMap(body -> Mono.delay(delay).thenReturn(body))
                        .flatMap(body -> {
                            if (request.uri().startsWith("/ceiling")) {
                                return response.status(200).send().then();
                            }
                            calls.incrementAndGet();
                            String key = request.requestHeaders().get("Idempotency-Key");
                            if (key == null) {
                                missingKey.incrementAndGet();
                                return response.status(400).send().then();
                            }
                            String failing = failingKey;
                            if (failing != null && failing.equals(request.requestHeaders().get("Message-Key-Base64"))) {
                                failingKeyCalls.incrementAndGet();
                                return response.status(503).send().then();
                            }
                            if (failEvery > 0 && Math.floorMod(key.hashCode(), failEvery) == 0 && failedOnce.add(key)) {
                                return response.status(503).send().then();
                            }
                            if (okById.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() == 1) {
                                countFirstEffect();
                            }
                            return response.status(200).send().then();
                        }))
                .bindNow();
    }

    /** The receiver's URL of {@code path}. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    /** From now on, every call for a record of {@code key} (text) is answered 503; null: none. */
    void failKey(String key) {
        failingKey = key == null ? null
                : Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    }

    /** Calls answered 503 because their key was failing. */
    long failingKeyCalls() {
        return failingKeyCalls.get();
    }

    /** Distinct ids answered 2xx. */
    public long effects() {
        return okById.size();
    }

    /**
     * Waits until {@code n} more distinct ids than {@code before} were answered 2xx, or {@code timeout} passed,
     * polling from the calling thread (the harness's main thread) and printing {@code progress} every few seconds;
     * returns how many more there were (short of {@code n} when the time ran out).
     */
    public long awaitEffects(long before, long n, Duration timeout, Progress progress) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long done;
        while ((done = effects() - before) < n && System.nanoTime() < deadline) {
            Thread.sleep(5); // the caller (the harness's main thread) polls the receiver's count
            long now = done;
            progress.maybePrint(() -> progress.count(now, n, "effects"));
        }
        return done;
    }

    /** Whether {@code id} was answered 2xx. */
    boolean handled(String id) {
        return okById.containsKey(id);
    }

    /** Ids answered 2xx more than once. */
    public long duplicateEffects() {
        return okById.values().stream().filter(n -> n.get() > 1).count();
    }

    /** Of {@code expected}, the ids never answered 2xx. */
    public long lost(Set<String> expected) {
        return expected.stream().filter(id -> !okById.containsKey(id)).count();
    }

    /** POSTs to {@code /hook}. */
    public long calls() {
        return calls.get();
    }

    long callsWithoutIdempotencyKey() {
        return missingKey.get();
    }

    long answered503() {
        return failedOnce.size();
    }

    Duration delay() {
        return delay;
    }

    /**
     * From now on, counts each id's first {@code 2xx} in the second since {@code originNanos} ({@link
     * System#nanoTime()}) it was answered in, up to {@link #MAX_SECONDS}.
     */
    public void countEachSecondFrom(long originNanos) {
        firstEffectAt.set(Long.MIN_VALUE);
        origin = originNanos;
    }

    /** {@link System#nanoTime()} of the first {@code 2xx} since the origin, or {@link Long#MIN_VALUE}: none yet. */
    public long firstEffectNanos() {
        return firstEffectAt.get();
    }

    /** First {@code 2xx} answers in each second since the origin, up to the last second with one. */
    public long[] effectsEachSecond() {
        int last = MAX_SECONDS - 1;
        while (last >= 0 && firstEffects.get(last) == 0) {
            last--;
        }
        long[] counts = new long[last + 1];
        for (int i = 0; i <= last; i++) {
            counts[i] = firstEffects.get(i);
        }
        return counts;
    }

    private void countFirstEffect() {
        long from = origin;
        if (from != Long.MIN_VALUE) {
            long now = System.nanoTime();
            firstEffectAt.compareAndSet(Long.MIN_VALUE, now);
            long second = (now - from) / 1_000_000_000L;
            if (second >= 0 && second < MAX_SECONDS) {
                firstEffects.incrementAndGet((int) second);
            }
        }
    }

    /** The receiver's event loops. */
    LoopResources loops() {
        return loops;
    }

    @Override
    public void close() {
        server.disposeNow();
        loops.disposeLater().block(Duration.ofSeconds(10)); // the harness's main thread, at the end
    }
}
