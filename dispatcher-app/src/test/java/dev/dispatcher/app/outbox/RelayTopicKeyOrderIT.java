package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import io.r2dbc.pool.ConnectionPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The relay's unit of order (issue 49): by default ({@code ordering=per-key}) it is {@code (topic, key)}, so a key
 * whose head cannot be sent in one topic (here a topic that does not exist on the shared broker, whose topic
 * auto-creation is off: the head is held back, attempts unspent) never holds the same key's rows in another topic,
 * which are all delivered in seq order meanwhile. With {@code per-key-across-topics} the key is the unit: its rows in
 * the healthy topic wait behind that head (the order before issue 49), while every other key flows.
 */
class RelayTopicKeyOrderIT {

    private static final int KEYS = 8;
    private static final int PER_KEY = 25;
    private static final String SHARED = "key-1";

    @Test
    void perKeyOrdersWithinATopicSoAKeysHeldHeadInOneTopicNeverHoldsItsRowsInAnother() throws Exception {
        try (RelayFixture fx = new RelayFixture("topickey")) {
            Setup setup = setUp(fx);
            Relay relay = relay(fx, Ordering.PER_KEY);
            try {
                await("every row of the existing topic delivered, the shared key's too")
                        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                        .until(() -> fx.count("topic = '" + setup.healthy + "' AND status = 'DELIVERED'")
                                == KEYS * PER_KEY);
                RelayPoisonAndRetryIT.Row head = awaitHeldBack(fx, setup.head);

                assertThat(head.status()).as("the missing topic's head is held back, not delivered")
                        .isEqualTo("PENDING");
                assertThat(head.attempts()).as("held back without spending an attempt").isZero();
                assertThat(head.lastError()).contains("does not exist");
                assertInSeqOrderPerKey(fx, setup.healthy, KEYS);
            } finally {
                relay.stop().block(Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void perKeyAcrossTopicsHoldsTheKeysRowsInEveryTopicBehindItsHeadWhileOtherKeysFlow() throws Exception {
        try (RelayFixture fx = new RelayFixture("acrosstopics")) {
            Setup setup = setUp(fx);
            Relay relay = relay(fx, Ordering.PER_KEY_ACROSS_TOPICS);
            try {
                await("every other key's rows of the existing topic delivered")
                        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                        .until(() -> fx.count("topic = '" + setup.healthy + "' AND message_key <> '" + SHARED
                                + "' AND status = 'DELIVERED'") == (KEYS - 1) * PER_KEY);
                RelayPoisonAndRetryIT.Row head = awaitHeldBack(fx, setup.head);

                assertThat(head.status()).isEqualTo("PENDING");
                assertThat(head.attempts()).isZero();
                assertThat(fx.count("message_key = '" + SHARED + "' AND topic = '" + setup.healthy
                        + "' AND (status <> 'PENDING' OR attempts <> 0)"))
                        .as("the shared key's rows in the existing topic wait behind its head in the missing one,"
                                + " never sent nor charged an attempt")
                        .isZero();
                assertInSeqOrderPerKey(fx, setup.healthy, KEYS - 1);
            } finally {
                relay.stop().block(Duration.ofSeconds(30));
            }
        }
    }

    private record Setup(String healthy, String missing, UUID head) {
    }

    /**
     * The shared key's first row is for a topic that does not exist, then {@code KEYS x PER_KEY} rows of an existing
     * topic, the shared key among theirs.
     */
    private static Setup setUp(RelayFixture fx) throws Exception {
        String healthy = "healthy-" + fx.schema;
        String missing = "missing-" + fx.schema;
        fx.kafka.createTopic(healthy, 3);
        UUID head = RelayPoisonAndRetryIT.insert(fx, missing, SHARED, "{\"head\":true}".getBytes());
        fx.seed(healthy, KEYS * PER_KEY, i -> "key-" + (i % KEYS));
        return new Setup(healthy, missing, head);
    }

    /** A started relay claiming with {@code ordering}, a missing-topic timeout far beyond the test. */
    private static Relay relay(RelayFixture fx, Ordering ordering) {
        String worker = "order-" + ordering.name().toLowerCase(Locale.ROOT);
        RelaySettings settings = new RelaySettings(worker, 50, 4, 64, Duration.ofSeconds(30), Duration.ofMillis(50),
                ordering, RetryPolicy.of(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, Jitter.FULL, 5,
                        new SplittableRandom(49)),
                Duration.ofSeconds(20), RelaySettings.DEFAULT_CLAIM_LINGER, Duration.ofMinutes(10));
        ConnectionPool pool = fx.pool(settings.loop().workerId());
        Relay relay = new Relay(OutboxStore.r2dbc(pool, ordering), fx.publisher(), settings,
                RelayBreaker.create(settings.loop().workerId()), RelayFixture.metrics(), () -> false);
        relay.start();
        return relay;
    }

    /** Waits until {@code id} has been tried and given back (not leased, with a last error); returns that state. */
    private static RelayPoisonAndRetryIT.Row awaitHeldBack(RelayFixture fx, UUID id) {
        return await("row " + id + " held back with its cause").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> RelayPoisonAndRetryIT.row(fx, id),
                        row -> row.leaseUntil() == null && row.lastError() != null);
    }

    /** Every key consumed from {@code topic} has all its rows, in seq order; {@code keys} keys in all. */
    private static void assertInSeqOrderPerKey(RelayFixture fx, String topic, int keys) throws Exception {
        Map<String, List<Long>> seqsByKey = RelayCompetingIT.seqsByKey(fx, topic);
        assertThat(seqsByKey).hasSize(keys);
        seqsByKey.forEach((key, seqs) -> assertThat(seqs).as("key %s complete and in seq order", key)
                .hasSize(PER_KEY).isSorted().doesNotHaveDuplicates());
    }
}
