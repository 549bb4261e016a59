package dev.dispatcher.load.blackbox;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Slow-body attackers: each of {@code connections} raw connections from one address sends the head of {@code POST
 * /v1/messages/batch} declaring {@code contentLength} bytes, then one byte (a space, valid JSON whitespace) per
 * {@code byteEvery}, written by a shared scheduler that never sleeps; a virtual thread per connection waits for its
 * answer. When one ends (an answer or a close) it is counted with its time from the head and, while the attack runs,
 * replaced by a new one, so {@code connections} stay open throughout.
 */
final class SlowBodies implements AttackWindows.Attack {

    private static final byte[] ONE_BYTE = " ".getBytes(StandardCharsets.US_ASCII);

    private final RawHttp.Target target;
    private final InetAddress from;
    private final int connections;
    private final long contentLength;
    private final Duration byteEvery;
    private final Duration answerWithin;
    private final ScheduledExecutorService scheduler;
    private final StatusTally ends = new StatusTally();
    private final Set<RawHttp> open = ConcurrentHashMap.newKeySet();
    private final RepeatingClients clients = new RepeatingClients();

    /**
     * @param answerWithin how long a slow body may wait for its answer from its head before the harness gives up on
     *     it, closing it as {@link StatusTally#STILL_OPEN} (beyond the service's body timeout)
     */
    SlowBodies(RawHttp.Target target, InetAddress from, int connections, long contentLength, Duration byteEvery,
            Duration answerWithin, ScheduledExecutorService scheduler) {
        this.target = target;
        this.from = from;
        this.connections = connections;
        this.contentLength = contentLength;
        this.byteEvery = byteEvery;
        this.answerWithin = answerWithin;
        this.scheduler = scheduler;
    }

    /** Opens the connections; each is replaced when it ends, until {@link #stop}. */
    @Override
    public void start() {
        clients.start(connections, "slow-body", this::slowBody);
    }

    /**
     * Stops replacing slow bodies, waits up to the answer's bound for the open ones to end, closes those still open
     * (counted as {@link StatusTally#STILL_OPEN}) and returns how every slow body ended.
     */
    @Override
    public StatusTally stop() throws InterruptedException {
        clients.stopAsking();
        long deadline = System.nanoTime() + answerWithin.toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50); // the harness's main thread: waiting is its job
        }
        for (RawHttp connection : open) {
            if (open.remove(connection)) {
                ends.add(StatusTally.STILL_OPEN, 0);
                connection.close();
            }
        }
        clients.stop(); // a body opened just before the stop ends within the service's own timeout
        return ends;
    }

    /** One slow body, from its head until its answer, its close or {@link #stop}. */
    private void slowBody() {
        long started = System.nanoTime();
        RawHttp connection;
        try {
            connection = RawHttp.open(target, from, answerWithin);
            connection.send(RawHttp.head("POST", "/v1/messages/batch", target, target.bearer(), "application/json",
                    contentLength));
        } catch (IOException e) {
            ends.add(StatusTally.NO_ANSWER, (System.nanoTime() - started) / 1_000_000);
            return;
        }
        open.add(connection);
        ScheduledFuture<?> trickle = scheduler.scheduleAtFixedRate(() -> {
            try {
                connection.send(ONE_BYTE);
            } catch (IOException e) {
                // the service closed the connection: the reader sees it
            }
        }, byteEvery.toNanos(), byteEvery.toNanos(), TimeUnit.NANOSECONDS);
        int status;
        try {
            status = connection.readStatus();
        } catch (IOException e) {
            status = StatusTally.NO_ANSWER; // no answer within answerWithin, or closed by stop()
        }
        trickle.cancel(false);
        if (open.remove(connection)) {
            ends.add(status, (System.nanoTime() - started) / 1_000_000);
            connection.close();
        }
    }
}
