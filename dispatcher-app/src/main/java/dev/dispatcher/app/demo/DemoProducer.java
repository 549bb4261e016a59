package dev.dispatcher.app.demo;

import dev.dispatcher.client.OutboxMessage;
import dev.dispatcher.client.OutboxWriter;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes demo orders to the outbox at a fixed rate (topic {@value #TOPIC}, 32 order keys) exactly the way an
 * application does: with {@code dispatcher-client}'s {@link OutboxWriter}, one transaction per tick (the writer
 * takes each key's writer lock, so a key's rows commit in seq order). Enabled with {@code dispatcher.demo.enabled};
 * {@code dispatcher.demo.rate} is messages per second. Starts after the relay and stops before it, so the relay
 * drains what it wrote last. A failed insert is logged and the next tick goes on.
 */
final class DemoProducer implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(DemoProducer.class);
    static final String TOPIC = DemoConfiguration.TOPIC;
    private static final Duration TICK = Duration.ofMillis(100);

    private final ConnectionFactory connections;
    private final double rate;
    private final OutboxWriter writer = OutboxWriter.create();
    private final AtomicLong written = new AtomicLong();
    private volatile Disposable running;

    DemoProducer(ConnectionFactory connections, double rate) {
        this.connections = connections;
        this.rate = rate;
    }

    @Override
    public synchronized void start() {
        if (running != null) {
            return;
        }
        log.info("demo producer writing {} messages/s to topic {}", rate, TOPIC);
        double perTick = rate * TICK.toMillis() / 1000.0;
        AtomicLong due = new AtomicLong();
        running = Flux.interval(TICK, TICK).onBackpressureDrop()
                .concatMap(tick -> {
                    long target = (long) Math.floor((tick + 1) * perTick);
                    int n = (int) Math.min(10_000, target - due.get());
                    due.addAndGet(n);
                    return n > 0 ? writeBatch(n).onErrorResume(e -> {
                        log.warn("demo producer: insert failed: {}", e.toString());
                        return Mono.empty();
                    }) : Mono.empty();
                })
                .subscribe();
    }

    private Mono<Void> writeBatch(int n) {
        return Mono.usingWhen(connections.create(), c -> Mono.from(c.beginTransaction())
                        .thenMany(Flux.range(0, n).concatMap(i -> writer.write(c, order(written.incrementAndGet()))))
                        .then(Mono.from(c.commitTransaction())),
                Connection::close, (c, e) -> Mono.from(c.rollbackTransaction()).then(Mono.from(c.close())),
                Connection::close);
    }

    private static OutboxMessage order(long n) {
        return OutboxMessage.builder(TOPIC, "OrderPlaced")
                .key("order-" + (n % 32))
                .payload(("{\"orderId\":" + n + ",\"amount\":" + (n % 997) + ".50,\"currency\":\"EUR\"}")
                        .getBytes(StandardCharsets.UTF_8))
                .correlationId("demo-" + n)
                .build();
    }

    @Override
    public synchronized void stop() {
        if (running != null) {
            running.dispose();
            running = null;
        }
    }

    @Override
    public boolean isRunning() {
        return running != null;
    }

    /** After the relay's lifecycle (which starts at {@code DEFAULT_PHASE - 100}), and stopped before it. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 50;
    }
}
