package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.SendFailure;
import dev.dispatcher.app.observe.DispatcherMetrics.PublishFailureCause;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.FailureKind;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.RetryPolicy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A key's failure stays with its key: one key whose head fails transiently on every attempt (injected at the
 * publisher's boundary) holds back only its own rows; the 63 other keys are all delivered, each in its order, while
 * that head sits scheduled for retry with its attempts and last error. How fast the other keys flow beside it is the
 * load-tests' measure ({@code RelayBenchmark drain --failing-key}), not this test's.
 */
class RelayFailingKeyIT {

    private static final int KEYS = 64;
    private static final int PER_KEY = 20;
    private static final String FAILING = "key-0";

    @Test
    void aKeyWhoseHeadKeepsFailingHoldsBackOnlyItsOwnRowsWhileTheOtherKeysAreDeliveredInOrder() throws Exception {
        try (RelayFixture fx = new RelayFixture("failingkey")) {
            String topic = "failingkey-" + fx.schema;
            fx.kafka.createTopic(topic, 4);
            List<UUID> ids = fx.seed(topic, KEYS * PER_KEY, i -> "key-" + (i % KEYS));
            UUID head = ids.getFirst();
            FaultPublisher publisher = FaultPublisher.key(fx.publisher(), FAILING, new SendFailure(
                    FailureKind.TRANSIENT, SendFailure.Scope.RECORD, PublishFailureCause.OTHER, "injected for key-0"));
            // retries every 100-400 ms, and never dead-lettered within the test
            RelaySettings settings = new RelaySettings("failingkey-relay", 100, 4, 64, Duration.ofSeconds(30),
                    Duration.ofMillis(50), Ordering.PER_KEY, RetryPolicy.of(Duration.ofMillis(100),
                            Duration.ofMillis(400), 2.0, Jitter.NONE, 1000, new SplittableRandom(5)),
                    Duration.ofSeconds(20));

            fx.relay(settings, publisher, RelayFixture.metrics());

            int others = (KEYS - 1) * PER_KEY;
            fx.awaitCount("status = 'DELIVERED'", others, Duration.ofSeconds(60));
            RelayPoisonAndRetryIT.Row failing = awaitScheduled(fx, head);

            assertThat(failing.status()).isEqualTo("RETRY_SCHEDULED");
            assertThat(failing.attempts()).as("retried with backoff, each failed attempt spent")
                    .isGreaterThanOrEqualTo(2);
            assertThat(failing.lastError()).isEqualTo("injected for key-0");
            assertThat(failing.visibleAfter()).isAfter(failing.lastAttemptAt());
            assertThat(fx.count("message_key = '" + FAILING + "' AND id <> '" + head + "' AND lease_until IS NULL"
                    + " AND (status <> 'PENDING' OR attempts <> 0)"))
                    .as("the failing key's later rows wait behind its head, never charged an attempt").isZero();
            assertThat(fx.count("message_key <> '" + FAILING + "' AND status <> 'DELIVERED'")).isZero();

            Map<String, List<Long>> seqsByKey = RelayCompetingIT.seqsByKey(fx, topic);
            assertThat(seqsByKey).hasSize(KEYS - 1).doesNotContainKey(FAILING);
            seqsByKey.forEach((key, seqs) ->
                    assertThat(seqs).as("key %s complete and in seq order", key).hasSize(PER_KEY).isSorted());
        }
    }

    /**
     * Samples {@code id} until it is scheduled for retry after at least two failed attempts and not leased, and
     * returns that state.
     */
    private static RelayPoisonAndRetryIT.Row awaitScheduled(RelayFixture fx, UUID id) throws Exception {
        return await("row %s scheduled for retry after at least two attempts, not leased".formatted(id))
                .atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .until(() -> RelayPoisonAndRetryIT.row(fx, id), row -> row.status().equals("RETRY_SCHEDULED")
                        && row.leaseUntil() == null && row.attempts() >= 2);
    }
}
