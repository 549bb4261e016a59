package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.Invariants;
import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Shutdown mid-batch: {@code stop()} finishes in-flight sends and writes their transitions, releases the lanes not
 * yet handed off, leaves nothing leased; a new relay delivers the rest and nothing is lost.
 */
class RelayShutdownIT {

    @Test
    void stopMidBatchDrainsInFlightReleasesTheRestAndANewRelayDeliversEverything() throws Exception {
        try (RelayFixture fx = new RelayFixture("shutdown")) {
            String topic = "shutdown-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            int n = 3000;
            List<UUID> ids = fx.seed(topic, n, i -> i % 10 == 0 ? null : "key-" + (i % 1000));
            DispatcherMetrics metrics = RelayFixture.metrics();
            RelaySettings base = RelayFixture.settings("shutdown-1", Ordering.PER_KEY);
            // small batches of many key runs, four lanes at a time, each lane slowed: at any moment the in-flight
            // batches hold lanes being sent and lanes not yet handed off
            RelaySettings settings = new RelaySettings(base.loop().workerId(), 50, 4, 4, base.loop().leaseDuration(),
                    base.loop().pollInterval(), base.ordering(), base.loop().retryPolicy(), base.loop().drainTimeout());
            DelayingPublisher publisher = new DelayingPublisher(fx.publisher(), Duration.ofMillis(40));
            Relay relay = fx.relay(settings, publisher, metrics);

            RelayKafkaOutageIT.awaitAtLeast(fx, "status = 'DELIVERED'", 300, Duration.ofSeconds(30));
            long leasedAtStop = fx.count("lease_until IS NOT NULL");
            long start = System.nanoTime();
            publisher.stopCalled = true;
            relay.stop().block(Duration.ofSeconds(30));
            Duration stopTook = Duration.ofNanos(System.nanoTime() - start);
            System.out.println("DIAG shutdown leasedAtStop=" + leasedAtStop + " stopTook=" + stopTook.toMillis()
                    + "ms statuses=" + fx.statusCounts() + " releases="
                    + RelayKafkaOutageIT.counter(metrics, "release", "applied") + " lanesFinishedAfterStop="
                    + publisher.lanesFinishedAfterStop.get());

            assertThat(leasedAtStop).as("work was in flight when stop was called").isPositive();
            assertThat(publisher.lanesFinishedAfterStop.get()).as("sends in flight at stop were drained")
                    .isPositive();
            assertThat(stopTook).as("drained, not cut off by the drain timeout")
                    .isLessThan(settings.loop().drainTimeout());
            assertThat(fx.count("lease_until IS NOT NULL AND status IN ('PENDING', 'RETRY_SCHEDULED')"))
                    .as("no row left leased").isZero();
            assertThat(fx.count("status IN ('RETRY_SCHEDULED', 'DEAD_LETTERED')")).isZero();
            long delivered = fx.count("status = 'DELIVERED'");
            assertThat(delivered).as("stopped mid-run").isBetween(300L, n - 1L);
            assertThat(deliveredIds(fx)).as("exactly the rows whose send was acknowledged are DELIVERED")
                    .isEqualTo(publisher.published);
            assertThat(fx.count("status = 'PENDING' AND attempts = 0")).as("released rows got their attempt back")
                    .isEqualTo(n - delivered);
            assertThat(RelayKafkaOutageIT.counter(metrics, "release", "applied"))
                    .as("lanes not yet handed off were released").isPositive();
            assertThat(RelayKafkaOutageIT.counter(metrics, "deliver", "applied")).isEqualTo(delivered);

            // a stopped relay claims nothing more
            Duration threePolls = settings.loop().pollInterval().multipliedBy(3);
            Invariants.holdFor("nothing claimed for three poll intervals after stop", threePolls,
                    settings.loop().pollInterval().dividedBy(2), () -> {
                assertThat(fx.count("status = 'DELIVERED'")).isEqualTo(delivered);
                assertThat(fx.count("lease_until IS NOT NULL")).isZero();
            });

            Set<String> deliveredIds = deliveredIds(fx);
            Map<String, Integer> firstRun = RelayKafkaOutageIT.messageIdsOnKafka(fx.kafka, topic, (int) delivered);
            assertThat(firstRun.keySet()).as("every DELIVERED row is on Kafka").containsAll(deliveredIds);

            fx.relay(RelayFixture.settings("shutdown-2", Ordering.PER_KEY), fx.publisher(), RelayFixture.metrics());
            fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(40));
            Map<String, Integer> onKafka = RelayKafkaOutageIT.messageIdsOnKafka(fx.kafka, topic, n);
            assertThat(onKafka.keySet()).isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
            assertThat(onKafka.values()).as("nothing sent twice").allMatch(c -> c == 1);
            assertThat(fx.count("attempts = 1 AND status = 'DELIVERED'")).isEqualTo(n);
        }
    }

    private static Set<String> deliveredIds(RelayFixture fx) throws Exception {
        Set<String> ids = new HashSet<>();
        try (Connection c = fx.jdbc(); ResultSet rows = c.createStatement().executeQuery(
                "SELECT id FROM outbox_message WHERE status = 'DELIVERED'")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    /** Delays each lane's publish (without blocking a thread), to keep work in flight. */
    static final class DelayingPublisher implements RecordPublisher {
        private final RecordPublisher delegate;
        private final Duration delay;
        /** Message ids whose send was acknowledged. */
        final Set<String> published = ConcurrentHashMap.newKeySet();
        volatile boolean stopCalled;
        final AtomicLong lanesFinishedAfterStop = new AtomicLong();

        DelayingPublisher(RecordPublisher delegate, Duration delay) {
            this.delegate = delegate;
            this.delay = delay;
        }

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return Mono.delay(delay).then(delegate.publish(records, ordered, pace)).doOnNext(results -> {
                for (int i = 0; i < results.size(); i++) {
                    if (results.get(i) instanceof PublishResult.Sent) {
                        published.add(records.get(i).headers().get("message-id"));
                    }
                }
                if (stopCalled) {
                    lanesFinishedAfterStop.incrementAndGet();
                }
            });
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return delegate.probe(timeout);
        }

        @Override
        public void close() {
            // the fixture closes the delegate
        }
    }
}
