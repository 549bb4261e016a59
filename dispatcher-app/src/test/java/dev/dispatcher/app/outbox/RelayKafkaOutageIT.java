package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import dev.dispatcher.app.Invariants;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.testkit.KafkaServer;
import dev.dispatcher.testkit.ProxiedKafka;
import dev.dispatcher.testkit.TestServers;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.r2dbc.pool.ConnectionPool;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;

/**
 * Kafka becomes unreachable mid-run: the circuit breaker opens, the relay stops claiming and spends no attempts,
 * and once the link is back every message is delivered, none lost, with no blocking call on a Reactor thread.
 */
class RelayKafkaOutageIT {

    @Test
    void brokerOutageOpensBreakerStopsClaimingSpendsNoAttemptsAndLosesNothing() throws Exception {
        try (BlockingWatch blocking = BlockingWatch.install();
                ProxiedKafka kafka = TestServers.kafkaBehindProxy();
                RelayFixture fx = new RelayFixture("outage", kafka)) {
            String topic = "outage-" + fx.schema;
            kafka.direct().createTopic(topic, 3);
            int n = 3000;
            List<UUID> ids = fx.seed(topic, n, i -> i % 10 == 0 ? null : "key-" + (i % 500));
            DispatcherMetrics metrics = RelayFixture.metrics();
            RecordPublisher publisher = fx.publisher(kafka.bootstrapServers(), Map.of(
                    "delivery.timeout.ms", 3000, "request.timeout.ms", 1000, "max.block.ms", 1000,
                    "reconnect.backoff.ms", 50, "reconnect.backoff.max.ms", 500, "linger.ms", 5));
            RelaySettings base = RelayFixture.settings("outage-relay", Ordering.PER_KEY);
            RelaySettings settings = new RelaySettings(base.loop().workerId(), 50, 2, 8, base.loop().leaseDuration(),
                    Duration.ofMillis(200), base.ordering(), base.loop().retryPolicy(), base.loop().drainTimeout());
            // slows delivery so that the cut lands mid-run
            kafka.proxy().delay(Duration.ofMillis(5));
            CircuitBreaker breaker = RelayBreaker.create(settings.loop().workerId());

            try (StartedRelay relay = StartedRelay.start(fx, settings, publisher, breaker, metrics, () -> false)) {
                awaitAtLeast(fx, "status = 'DELIVERED'", 300, Duration.ofSeconds(30));
                kafka.proxy().cut();
                long deliveredAtCut = fx.count("status = 'DELIVERED'");
                assertThat(deliveredAtCut).as("the cut landed before everything was delivered").isLessThan(n);

                long cutAt = System.nanoTime();
                awaitState(breaker, CircuitBreaker.State.OPEN, Duration.ofSeconds(20));
                System.out.println("DIAG outage deliveredAtCut=" + deliveredAtCut + " open after "
                        + (System.nanoTime() - cutAt) / 1_000_000 + " ms");

                // while open: no claim (claims raise attempts and leases; releases only lower them), released
                // rows have their attempt back, and nothing is scheduled for retry or dead-lettered
                List<Snapshot> samples = new ArrayList<>();
                Invariants.holdFor("the breaker open, no claim and no attempt spent", Duration.ofSeconds(3),
                        Duration.ofMillis(100), () -> {
                    Snapshot after = Snapshot.take(fx);
                    assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
                    if (!samples.isEmpty()) {
                        Snapshot before = samples.getLast();
                        assertThat(after.attemptsSum()).as("no claim while open: %s then %s", before, after)
                                .isLessThanOrEqualTo(before.attemptsSum());
                        assertThat(after.leased()).as("no claim while open: %s then %s", before, after)
                                .isLessThanOrEqualTo(before.leased());
                    }
                    samples.add(after);
                    assertThat(after.releasedWithAttempts())
                            .as("released rows got their attempt back: %s", after).isZero();
                    assertThat(after.retryOrDead()).as("unavailability spends no attempts: %s", after)
                            .isZero();
                });
                System.out.println("DIAG outage open samples first=" + samples.getFirst() + " last="
                        + samples.getLast());
                assertThat(samples.getLast().delivered()).isLessThan(n);

                kafka.proxy().restore();
                kafka.proxy().delay(Duration.ZERO);
                long restoredAt = System.nanoTime();
                fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(40));
                System.out.println("DIAG outage all delivered " + (System.nanoTime() - restoredAt) / 1_000_000
                        + " ms after restore");
                assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
            }

            assertThat(blocking.failures()).as("blocking calls on non-blocking threads").isEmpty();

            assertThat(maxAttempts(fx)).as("no row spent more than its delivering attempt").isEqualTo(1);
            assertThat(fx.count("status IN ('RETRY_SCHEDULED', 'DEAD_LETTERED')")).isZero();
            assertThat(fx.count("status = 'DELIVERED' AND lease_until IS NULL")).isEqualTo(n);
            assertThat(counter(metrics, "release", "applied")).as("in-flight rows were released").isPositive();
            assertThat(counter(metrics, "retry", "applied") + counter(metrics, "dead_letter", "applied")).isZero();

            Map<String, Integer> onKafka = messageIdsOnKafka(kafka.direct(), topic, n);
            System.out.println("DIAG outage records=" + onKafka.values().stream().mapToInt(i -> i).sum()
                    + " distinct=" + onKafka.size() + " releases=" + counter(metrics, "release", "applied"));
            assertThat(onKafka.keySet()).containsAll(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
        }
    }

    private static void awaitState(CircuitBreaker breaker, CircuitBreaker.State state, Duration timeout) {
        await("the breaker " + state).atMost(timeout).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(breaker.getState())
                        .as("failure rate %s", breaker.getMetrics().getFailureRate()).isEqualTo(state));
    }

    /** Waits until {@code where} matches at least {@code min} rows, polling often so that the caller acts mid-run. */
    static long awaitAtLeast(RelayFixture fx, String where, long min, Duration timeout) {
        AtomicLong seen = new AtomicLong();
        await("at least %d rows where %s".formatted(min, where)).atMost(timeout).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> {
                    seen.set(fx.count(where));
                    if (seen.get() < min) { // the state around it, told only while short of it
                        assertThat(seen.get()).as("rows where %s; statuses %s; errors %s", where,
                                fx.statusCounts(), fx.lastErrors()).isGreaterThanOrEqualTo(min);
                    }
                });
        return seen.get();
    }

    private static int maxAttempts(RelayFixture fx) throws Exception {
        try (Connection c = fx.jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT max(attempts) FROM outbox_message")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    static double counter(DispatcherMetrics metrics, String transition, String outcome) {
        return metrics.registry().find("dispatcher.transition.attempts").tag("queue", "outbox")
                .tag("transition", transition).tag("outcome", outcome).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /** Durable counters that change with every claim or transition. */
    private record Snapshot(long delivered, long attemptsSum, long leased, long releasedWithAttempts,
            long retryOrDead) {
        static Snapshot take(RelayFixture fx) throws Exception {
            try (Connection c = fx.jdbc(); ResultSet r = c.createStatement().executeQuery("""
                    SELECT count(*) FILTER (WHERE status = 'DELIVERED'), coalesce(sum(attempts), 0),
                           count(*) FILTER (WHERE lease_until IS NOT NULL),
                           count(*) FILTER (WHERE status = 'PENDING' AND attempts > 0 AND lease_until IS NULL),
                           count(*) FILTER (WHERE status IN ('RETRY_SCHEDULED', 'DEAD_LETTERED'))
                      FROM outbox_message""")) {
                r.next();
                return new Snapshot(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5));
            }
        }
    }

    /**
     * Message ids read from {@code topic} with their counts, reading on past duplicates until {@code n} distinct
     * ids were seen or no more arrive.
     */
    static Map<String, Integer> messageIdsOnKafka(KafkaServer kafka, String topic, int n) {
        int expected = n;
        while (true) {
            List<ConsumerRecord<String, byte[]>> records = kafka.consume(topic, expected, Duration.ofSeconds(20));
            Map<String, Integer> seen = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                Header h = r.headers().lastHeader("message-id");
                seen.merge(h == null ? "<none>" : new String(h.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
            if (seen.size() >= n || records.size() < expected) {
                return seen;
            }
            expected += records.size() - seen.size();
        }
    }

    /** A relay built here (not by the fixture) so that the test holds its circuit breaker; stops it on close. */
    static final class StartedRelay implements AutoCloseable {
        final Relay relay;
        final OutboxListener listener;

        private StartedRelay(Relay relay, OutboxListener listener) {
            this.relay = relay;
            this.listener = listener;
        }

        static StartedRelay start(RelayFixture fx, RelaySettings settings, RecordPublisher publisher,
                CircuitBreaker breaker, DispatcherMetrics metrics, BooleanSupplier paused) {
            ConnectionPool pool = fx.pool(settings.loop().workerId());
            Relay relay = new Relay(OutboxStore.r2dbc(pool), publisher, settings, breaker, metrics, paused);
            OutboxListener listener = new OutboxListener(pool, fx.schema, relay::wake, Duration.ofSeconds(2));
            listener.start();
            relay.start();
            return new StartedRelay(relay, listener);
        }

        @Override
        public void close() {
            try {
                relay.stop().block(Duration.ofSeconds(30));
            } finally {
                listener.stop();
            }
        }
    }

    /**
     * Records every {@link BlockingOperationError} that reaches a log line, Reactor's dropped-error hook or the
     * schedulers' error handler, for the duration of a test.
     */
    static final class BlockingWatch implements AutoCloseable {
        private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                IThrowableProxy t = event.getThrowableProxy();
                boolean blocking = String.valueOf(event.getFormattedMessage()).contains("BlockingOperationError");
                for (IThrowableProxy p = t; p != null && !blocking; p = p.getCause()) {
                    blocking = p.getClassName().equals(BlockingOperationError.class.getName())
                            || (p instanceof ThrowableProxy tp && contains(tp.getThrowable()));
                }
                if (blocking) {
                    failures.add("log " + event.getLoggerName() + ": " + event.getFormattedMessage()
                            + (t == null ? "" : " / " + t.getClassName() + ": " + t.getMessage()));
                }
            }
        };

        static BlockingWatch install() {
            BlockingWatch watch = new BlockingWatch();
            Logger root = ((LoggerContext) LoggerFactory.getILoggerFactory())
                    .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            watch.appender.setContext(root.getLoggerContext());
            watch.appender.start();
            root.addAppender(watch.appender);
            Hooks.onErrorDropped(e -> {
                if (contains(e)) {
                    watch.failures.add("dropped: " + e);
                }
            });
            Schedulers.onHandleError(BlockingWatch.class.getName(), (thread, e) -> {
                if (contains(e)) {
                    watch.failures.add("scheduler " + thread.getName() + ": " + e);
                }
            });
            return watch;
        }

        static boolean contains(Throwable e) {
            Set<Throwable> seen = new java.util.HashSet<>();
            for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
                if (t instanceof BlockingOperationError) {
                    return true;
                }
                for (Throwable s : t.getSuppressed()) {
                    if (s instanceof BlockingOperationError) {
                        return true;
                    }
                }
            }
            return false;
        }

        List<String> failures() {
            return List.copyOf(failures);
        }

        @Override
        public void close() {
            Logger root = ((LoggerContext) LoggerFactory.getILoggerFactory())
                    .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            root.detachAppender(appender);
            appender.stop();
            Hooks.resetOnErrorDropped();
            Schedulers.resetOnHandleError(BlockingWatch.class.getName());
        }
    }
}
