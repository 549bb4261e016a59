package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.queue.Attempt;
import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.Batches;
import dev.dispatcher.app.store.Backlog;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.app.store.InboxStore;
import dev.dispatcher.app.store.TransitionRequest;
import dev.dispatcher.app.store.Ordering;
import dev.dispatcher.domain.DispatchResult;
import dev.dispatcher.domain.Jitter;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import dev.dispatcher.domain.Queue;
import dev.dispatcher.domain.TransitionResult;
import dev.dispatcher.domain.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@link RunHandlers} with per-key order, on a handler without a transaction (so no database is involved): a key's
 * run is handled one message after another in seq order and stops at its first failure, whose later messages are
 * not attempted (the loop releases them without spending attempts); other keys and messages without a key go on;
 * a binary key and a text key with other bytes are two keys.
 */
class RunHandlersTest {

    private static final UUID TOKEN = UUID.randomUUID();

    @Test
    void aKeysRunStopsAtItsFirstFailureAndTheOtherKeysGoOn() {
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        InboxHandler handler = InboxFixture.withoutTransaction((message, context) -> {
            handled.add(message.id().value());
            return message.id().value().equals("a2") ? Mono.error(new IllegalStateException("refused"))
                    : Mono.empty();
        });
        // seqs out of order in the batch: a run is handled in seq order whatever the batch's order
        List<ClaimedInboxMessage> batch = List.of(message("a3", "a", null, 3), message("b1", "b", null, 2),
                message("a1", "a", null, 1), message("u1", null, null, 4), message("a2", "a", null, 2),
                message("x1", null, new byte[] {0, 'a'}, 6), message("x2", null, new byte[] {0, 'a'}, 7));
        RunHandlers strategy = new RunHandlers(new NoTransactions(), handler, settings(2));

        List<Attempt<ClaimedInboxMessage>> attempts = strategy.work(batch(batch)).block(Duration.ofSeconds(10));

        Map<String, DispatchResult> results = attempts.stream().collect(Collectors.toMap(
                a -> a.message().leased().id().value(), a -> ((Attempt.Dispatched<ClaimedInboxMessage>) a).result()));
        assertThat(results.get("a1")).isEqualTo(DispatchResult.PUBLISHED);
        assertThat(results.get("a2")).isInstanceOf(DispatchResult.Failed.class);
        assertThat(results.get("a3")).isEqualTo(
                new DispatchResult.NotAttempted("an earlier message of its key was not handled"));
        assertThat(results).containsEntry("b1", DispatchResult.PUBLISHED).containsEntry("u1", DispatchResult.PUBLISHED)
                .containsEntry("x1", DispatchResult.PUBLISHED).containsEntry("x2", DispatchResult.PUBLISHED);
        assertThat(handled).doesNotContain("a3").containsSubsequence("a1", "a2").containsSubsequence("x1", "x2");
        assertThat(strategy.holdsBackWork()).isTrue();
    }

    @Test
    void aBatchWithARunAsLongAsAClaimTakesOfAKeyMayHaveLeftRowsOfThatKey() {
        // batch size 10, concurrency 4: a claim takes at most 3 rows of a key
        RunHandlers strategy = new RunHandlers(new NoTransactions(),
                InboxFixture.withoutTransaction((m, c) -> Mono.empty()), settings(4));
        assertThat(strategy.mayHaveLeftRowsOfItsKeys(List.of(message("a1", "a", null, 1), message("b1", "b", null, 2),
                message("a2", "a", null, 3), message("a3", "a", null, 4)))).isTrue();
        assertThat(strategy.mayHaveLeftRowsOfItsKeys(List.of(message("a1", "a", null, 1), message("b1", "b", null, 2),
                message("a2", "a", null, 3)))).isFalse();
        assertThat(strategy.mayHaveLeftRowsOfItsKeys(List.of(message("u1", null, null, 1),
                message("u2", null, null, 2), message("u3", null, null, 3)))).as("rows without a key").isFalse();
    }

    @Test
    void aBatchIsSplitIntoOneRunPerKeyAndOneRunPerMessageWithoutAKey() {
        List<List<ClaimedInboxMessage>> runs = RunHandlers.runs(List.of(message("a2", "a", null, 5),
                message("u1", null, null, 1), message("b1", "b", null, 2), message("a1", "a", null, 3),
                message("0a", null, new byte[] {0, 'a'}, 4), message("u2", null, null, 6),
                message("0a2", null, new byte[] {0, 'a'}, 0)));

        assertThat(runs).extracting(run -> run.stream().map(m -> m.leased().id().value()).toList())
                .containsExactly(List.of("u1"), List.of("u2"), List.of("a1", "a2"), List.of("b1"),
                        List.of("0a2", "0a"));
    }

    static InboxSettings settings(int concurrency) {
        return new InboxSettings("c", "w", 10, concurrency, 2, Duration.ofSeconds(30), Duration.ofMillis(100),
                Duration.ZERO, RetryPolicy.of(Duration.ofMillis(10), Duration.ofMillis(10), 2.0, Jitter.NONE, 5,
                        new SplittableRandom(1)), 100, Duration.ofSeconds(5), Duration.ofSeconds(5), 1024)
                .withOrdering(Ordering.PER_KEY);
    }

    private static ClaimedInboxMessage message(String id, String key, byte[] keyBytes, long seq) {
        LeasedMessage leased = new LeasedMessage(MessageId.of(id), new Lease("w", TOKEN, Instant.now()), 0, 1,
                MessageStatus.PENDING, key, seq);
        return new ClaimedInboxMessage(leased, "c", "t", 0, seq, keyBytes, "E", Map.of(), new byte[0], Instant.now(),
                false);
    }

    /** Rows of a consumer whose handler needs no transaction: nothing here is ever called. */
    static final class NoTransactions implements InboxStore.Consumer {

        @Override
        public String name() {
            return "c";
        }

        @Override
        public Queue queue() {
            return Queue.INBOX;
        }

        @Override
        public Mono<List<ClaimedInboxMessage>> claim(String owner, int limit, Duration lease) {
            return Mono.error(new AssertionError("not claimed here"));
        }

        @Override
        public Mono<List<TransitionResult>> transition(List<TransitionRequest> requests) {
            return Mono.error(new AssertionError("not written here"));
        }

        @Override
        public Mono<Backlog> backlog() {
            return Mono.error(new AssertionError("not read here"));
        }

        @Override
        public Mono<Long> purgeFinished(MessageStatus status, Duration age, int limit) {
            return Mono.error(new AssertionError("not purged here"));
        }

        @Override
        public Mono<TransitionResult> deliverWithin(TransitionRequest deliver,
                java.util.function.Function<io.r2dbc.spi.Connection, Mono<Void>> work) {
            return Mono.error(new AssertionError("no transaction for a handler that needs none"));
        }
    }

    private static BatchStrategy.Batch<ClaimedInboxMessage> batch(List<ClaimedInboxMessage> messages) {
        return Batches.of(messages, false);
    }
}
