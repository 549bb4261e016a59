package dev.dispatcher.app.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.kafka.OutboundRecord;
import dev.dispatcher.app.kafka.PublishResult;
import dev.dispatcher.app.kafka.RecordFormat;
import dev.dispatcher.app.kafka.RecordPublisher;
import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.app.store.OutboxStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.MeterNotFoundException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The crash window between a successful send and its transition: the message is sent again (at least once) and
 * delivered once, and a send whose lease was lost meanwhile is never counted as published.
 */
class RelayCrashWindowIT {

    @Test
    void messageSentByAWorkerThatCrashedBeforeItsTransitionIsSentAgainAndDeliveredOnce() throws Exception {
        try (RelayFixture fx = new RelayFixture("crash")) {
            String topic = "crash-" + fx.schema;
            fx.kafka.createTopic(topic, 1);
            UUID id = fx.seed(topic, 1, i -> "order-1").getFirst();
            RecordPublisher publisher = fx.publisher();

            // The crashed worker: claims with a short lease, sends, and never writes its transition.
            OutboxStore crashed = OutboxStore.r2dbc(fx.pool("crashed-worker"));
            List<ClaimedOutboxMessage> claimed = crashed.claimBatch("crashed-worker", 10, Duration.ofSeconds(2),
                    Ordering.PER_KEY).block(Duration.ofSeconds(20));
            assertThat(claimed).hasSize(1);
            List<PublishResult> sent = publisher.publish(List.of(RecordFormat.plain().toRecord(claimed.getFirst())), true,
                    RecordPublisher.Pace.PROMPT).block(Duration.ofSeconds(20));
            assertThat(sent).containsExactly(PublishResult.SENT);

            DispatcherMetrics metrics = RelayFixture.metrics();
            fx.relay(RelayFixture.settings("recovering-relay", Ordering.PER_KEY), publisher, metrics);

            fx.awaitCount("status = 'DELIVERED'", 1, Duration.ofSeconds(20));
            // every record up to the end offset, however slowly a loaded machine fetches them
            List<ConsumerRecord<String, byte[]>> records = RelayCompetingIT.consumeAll(fx, topic);
            assertThat(records).hasSize(2);
            assertThat(records).extracting(r -> header(r, "message-id")).containsOnly(id.toString());
            assertThat(fx.count("id = '" + id + "' AND status = 'DELIVERED' AND version = 1 AND attempts = 2 "
                    + "AND lease_owner = 'recovering-relay' AND lease_until IS NULL")).isEqualTo(1);
            MeterRegistry registry = metrics.registry();
            // the relay counts a transition after its commit, which this thread may have seen first: the wait is
            // on every series asserted, not on one of them
            await("the recovery counted: one lease expiry, one deliver applied, one message published")
                    .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .ignoreException(MeterNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(registry.get("dispatcher.lease.expirations").tag("queue", "outbox").counter()
                                .count()).isEqualTo(1.0);
                        assertThat(registry.get("dispatcher.transition.attempts").tag("transition", "deliver")
                                .tag("outcome", "applied").counters())
                                .singleElement().satisfies(c -> assertThat(c.count()).isEqualTo(1.0));
                        assertThat(registry.get("dispatcher.messages").tag("result", "published").counter()
                                .count()).isEqualTo(1.0);
                    });
            assertThat(registry.find("dispatcher.transition.attempts").tag("outcome", "stale_lease").counters())
                    .isEmpty();
        }
    }

    @Test
    void sendWhoseLeaseWasTakenOverIsCountedAsPersistSkippedNotPublished() throws Exception {
        try (RelayFixture fx = new RelayFixture("stolen")) {
            UUID id = fx.seed("stolen-topic", 1, i -> "order-1").getFirst();
            DispatcherMetrics metrics = RelayFixture.metrics();

            fx.relay(RelayFixture.settings("robbed-relay", Ordering.PER_KEY), new LeaseThiefPublisher(fx), metrics);

            MeterRegistry registry = metrics.registry();
            // the wait is on every series asserted, not on one of them
            await("the stolen send counted: one persist skipped, one stale-lease deliver")
                    .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .ignoreException(MeterNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(registry.get("dispatcher.messages").tag("result", "persist_skipped").counter()
                                .count()).isEqualTo(1.0);
                        assertThat(registry.get("dispatcher.transition.attempts").tag("transition", "deliver")
                                .tag("outcome", "stale_lease").tag("durable_status", "pending").counter().count())
                                .isEqualTo(1.0);
                    });
            assertThat(registry.find("dispatcher.messages").tag("result", "published").counters()).isEmpty();
            assertThat(registry.find("dispatcher.transition.attempts").tag("outcome", "applied").counters())
                    .isEmpty();
            assertThat(fx.count("id = '" + id + "' AND status = 'PENDING' AND lease_owner = 'thief' "
                    + "AND version = 0")).isEqualTo(1);
        }
    }

    private static String header(ConsumerRecord<String, byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /**
     * A publisher that reports every record sent, but first lets another worker take over each record's lease
     * (as if this worker had stalled past its lease), through its own JDBC connection off the Reactor threads.
     */
    private static final class LeaseThiefPublisher implements RecordPublisher {

        private final RelayFixture fx;

        LeaseThiefPublisher(RelayFixture fx) {
            this.fx = fx;
        }

        @Override
        public Mono<List<PublishResult>> publish(List<OutboundRecord> records, boolean ordered, Pace pace) {
            return Mono.fromCallable(() -> {
                        try (Connection c = fx.jdbc(); PreparedStatement s = c.prepareStatement("""
                                UPDATE outbox_message SET lease_owner = 'thief', lease_token = gen_random_uuid(),
                                       lease_until = now() + interval '1 minute', attempts = attempts + 1
                                 WHERE id = ?::uuid RETURNING id""")) {
                            for (OutboundRecord r : records) {
                                s.setString(1, r.headers().get("message-id"));
                                try (ResultSet rs = s.executeQuery()) {
                                    assertThat(rs.next()).isTrue();
                                }
                            }
                        }
                        return Collections.nCopies(records.size(), PublishResult.SENT);
                    })
                    .subscribeOn(Schedulers.boundedElastic());
        }

        @Override
        public Mono<Boolean> probe(Duration timeout) {
            return Mono.just(true);
        }

        @Override
        public void close() {
        }
    }
}
