package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.Ordering;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The relay's database connections, its LISTEN connection among them, are terminated mid-run: the relay recovers
 * without a restart, delivers every message exactly once as far as the durable state goes, and still wakes on
 * notifications.
 */
class RelayDatabaseConnectionsKilledIT {

    @Test
    void relayAndListenerRecoverFromTerminatedConnectionsAndDeliverEveryMessage() throws Exception {
        try (RelayFixture fx = new RelayFixture("killed")) {
            String topic = "killed-" + fx.schema;
            fx.kafka.createTopic(topic, 3);
            int n = 5000;
            List<UUID> ids = new ArrayList<>(fx.seed(topic, n, i -> i % 10 == 0 ? null : "key-" + (i % 50)));
            DispatcherMetrics metrics = RelayFixture.metrics();
            String workerId = "killme-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
            RelaySettings base = RelayFixture.settings(workerId, Ordering.PER_KEY);
            // a long poll interval: a delivery much faster than it after the kills proves LISTEN came back
            Duration poll = Duration.ofSeconds(5);
            RelaySettings settings = new RelaySettings(workerId, 50, 4, 8, Duration.ofSeconds(10), poll,
                    base.ordering(), base.loop().retryPolicy(), base.loop().drainTimeout());
            fx.relay(settings, new RelayShutdownIT.DelayingPublisher(fx.publisher(), Duration.ofMillis(30)), metrics);

            RelayKafkaOutageIT.awaitAtLeast(fx, "status = 'DELIVERED'", 800, Duration.ofSeconds(30));
            int killed = 0;
            for (int round = 0; round < 3; round++) {
                killed += terminate(fx, workerId);
                if (round < 2) { // the next round kills the connections the relay opened again
                    await("the relay connected again after kill round " + round).atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(20)).until(() -> countBackends(fx, workerId) > 0);
                }
            }
            long deliveredAfterKills = fx.count("status = 'DELIVERED'");
            System.out.println("DIAG killed backends=" + killed + " deliveredAfterKills=" + deliveredAfterKills);
            assertThat(killed).as("the relay's backends were terminated").isGreaterThanOrEqualTo(2);
            assertThat(deliveredAfterKills).as("the kills landed mid-run").isLessThan(n);

            // each failed claim waits a poll interval before the next
            fx.awaitCount("status = 'DELIVERED'", n, Duration.ofSeconds(60));
            // the listener notices its dead connection (keep-alive 2 s) and listens again on a new one
            await("the relay's listener connected again").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20)).until(() -> countListeners(fx, workerId) > 0);

            // The relay claimed each round's rows after they were seeded, then waited for a wake-up or its poll: a
            // poll-driven claim of the next round comes a whole poll interval after that, so a round delivered
            // less than a poll interval after the previous round's seeding was woken by a notification. (A fixed
            // bound on one round's delivery time would be a guess at how quickly a loaded machine delivers.)
            // The first round only marks the start.
            int timedRounds = 3;
            long previousSeeding = 0;
            for (int round = 0; round <= timedRounds; round++) {
                long seeding = System.nanoTime();
                ids.addAll(fx.seed(topic, 5, i -> "late-" + i));
                fx.awaitCount("status = 'DELIVERED'", ids.size(), Duration.ofSeconds(15));
                long delivered = System.nanoTime();
                System.out.println("DIAG late round " + round + " delivered in " + (delivered - seeding) / 1_000_000
                        + " ms");
                if (round > 0) {
                    assertThat(Duration.ofNanos(delivered - previousSeeding))
                            .as("woken by NOTIFY, not by the %s poll: delivered after the previous round's seeding",
                                    poll)
                            .isLessThan(poll);
                }
                previousSeeding = seeding;
                // the relay back to waiting for a wake-up or its poll, so the next round's claim is woken
                await("the relay idle after round " + round).during(Duration.ofMillis(300))
                        .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                        .until(() -> countActiveBackends(fx, workerId) == 0);
            }

            int total = ids.size();
            assertThat(fx.count("status = 'DELIVERED' AND lease_until IS NULL")).isEqualTo(total);
            // counted after each commit, which this thread may have seen first
            await("each message's Deliver counted").atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(RelayKafkaOutageIT.counter(metrics, "deliver", "applied"))
                            .as("each message's Deliver applied exactly once").isEqualTo(total));
            Map<String, Integer> onKafka = RelayKafkaOutageIT.messageIdsOnKafka(fx.kafka, topic, total);
            System.out.println("DIAG killed records=" + onKafka.values().stream().mapToInt(i -> i).sum()
                    + " distinct=" + onKafka.size() + " stale=" + RelayKafkaOutageIT.counter(metrics, "deliver",
                    "stale_lease") + " statuses=" + fx.statusCounts());
            assertThat(onKafka.keySet()).isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
        }
    }

    private static int terminate(RelayFixture fx, String workerId) throws Exception {
        int killed = 0;
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?")) {
            s.setString(1, workerId);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    killed += rows.getBoolean(1) ? 1 : 0;
                }
            }
        }
        return killed;
    }

    /** The relay's sessions that last ran LISTEN or its keep-alive: the listener's (the pool runs neither). */
    private static long countListeners(RelayFixture fx, String workerId) throws Exception {
        return countSessions(fx, workerId, "query IN ('LISTEN dispatcher_outbox', 'SELECT 1')");
    }

    private static long countActiveBackends(RelayFixture fx, String workerId) throws Exception {
        return countSessions(fx, workerId, "state <> 'idle'");
    }

    private static long countBackends(RelayFixture fx, String workerId) throws Exception {
        return countSessions(fx, workerId, "true");
    }

    /** The sessions of {@code workerId} (its application name) that satisfy {@code condition}. */
    private static long countSessions(RelayFixture fx, String workerId, String condition) throws Exception {
        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND " + condition)) {
            s.setString(1, workerId);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
