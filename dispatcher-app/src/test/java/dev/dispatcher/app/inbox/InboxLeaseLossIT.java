package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.observe.DispatcherMetrics;
import dev.dispatcher.app.queue.ClaimLoop;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.InboxStore;
import reactor.core.scheduler.Schedulers;
import io.r2dbc.pool.ConnectionPool;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** A handler's local writes commit only together with an applied completion. */
class InboxLeaseLossIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void handlerThatLostItsLeaseIsRolledBackAndTheNewHolderCommitsOnce() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_lease")) {
            String topic = fx.topic("lease", 1);
            AtomicBoolean firstEntered = new AtomicBoolean();
            Sinks.Empty<Void> releaseFirst = Sinks.empty();
            // Only the first invocation waits; the next lease holder (a second worker, or the first worker's own
            // processor re-claiming the expired lease) runs through.
            InboxHandler handler = InboxFixture.effectHandler((message, context) ->
                    firstEntered.compareAndSet(false, true) ? releaseFirst.asMono() : Mono.empty());
            DispatcherMetrics a = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "lease-group"), handler, InboxFixture.settings("orders", "lease-a"), a);
            fx.send(topic, 0, "lost-1", "{}");
            InboxFixture.await("first handler running", firstEntered::get, WAIT);

            // The first worker's effect is written but not committed; its lease runs out (made so here).
            assertThat(fx.count("SELECT count(*) FROM effect")).isZero();
            try (Connection c = fx.jdbc(); Statement s = c.createStatement()) {
                assertThat(s.executeUpdate("UPDATE inbox_message SET lease_until = now() - interval '1 second'"
                        + " WHERE message_id = 'lost-1' AND lease_owner = 'lease-a'")).isEqualTo(1);
            }
            DispatcherMetrics b = InboxFixture.metrics();
            ConnectionPool poolB = fx.pool("lease-b", 4);
            ClaimLoop<ClaimedInboxMessage> second = InboxConsumer.handlerLoop(
                    InboxStore.r2dbc(poolB).consumer("orders"), handler, InboxFixture.settings("orders", "lease-b"), b,
                    Schedulers.newSingle("lease-b"));
            second.start();
            try {
                fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 1, WAIT);
                // the new holder's effect is committed, and it is the only one
                assertThat(fx.count("SELECT count(*) FROM effect e JOIN inbox_message m"
                        + " ON m.message_id = e.message_id AND m.lease_owner = e.worker")).isEqualTo(1);
                assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(1);

                releaseFirst.tryEmitEmpty();
                InboxFixture.await("first worker's completion skipped",
                        () -> InboxFixture.counter(a, "persist_skipped") == 1, WAIT);
            } finally {
                second.stop().block(WAIT);
            }

            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(1);
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED' AND attempts = 2"))
                    .isEqualTo(1);
            assertThat(InboxFixture.counter(a, "succeeded") + InboxFixture.counter(b, "succeeded")).isEqualTo(1);
            assertThat(a.registry().get("dispatcher.transition.attempts").tag("queue", "inbox")
                    .tag("transition", "deliver").tag("outcome", "terminal").tag("durable_status", "completed")
                    .counter().count()).isEqualTo(1);
            assertThat(expirations(a) + expirations(b)).isEqualTo(1);
        }
    }

    private static double expirations(DispatcherMetrics metrics) {
        var counter = metrics.registry().find("dispatcher.lease.expirations").tag("queue", "inbox").counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void failedHandlerRollsBackItsWritesAndIsRetriedUntilItSucceeds() throws Exception {
        try (InboxFixture fx = new InboxFixture("inbox_retry")) {
            String topic = fx.topic("retry", 1);
            AtomicInteger calls = new AtomicInteger();
            InboxHandler handler = InboxFixture.effectHandler((message, context) -> calls.incrementAndGet() < 3
                    ? Mono.error(new IllegalStateException("downstream not ready"))
                    : Mono.empty());
            DispatcherMetrics metrics = InboxFixture.metrics();
            fx.consumer(fx.receiver(topic, "retry-group"), handler, InboxFixture.settings("orders", "retry-1"),
                    metrics);
            fx.send(topic, 0, "r-1", "{}");

            fx.awaitCount("SELECT count(*) FROM inbox_message WHERE status = 'COMPLETED'", 1, WAIT);
            assertThat(fx.count("SELECT count(*) FROM effect")).isEqualTo(1);
            assertThat(fx.count("SELECT count(*) FROM inbox_message WHERE attempts = 3"
                    + " AND last_error LIKE '%downstream not ready%'")).isEqualTo(1);
            assertThat(InboxFixture.counter(metrics, "failed")).isEqualTo(2);
            assertThat(metrics.registry().get("dispatcher.transition.attempts").tag("queue", "inbox")
                    .tag("transition", "retry").tag("outcome", "applied").counter().count()).isEqualTo(2);
        }
    }
}
