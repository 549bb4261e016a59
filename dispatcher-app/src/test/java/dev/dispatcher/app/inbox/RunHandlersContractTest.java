package dev.dispatcher.app.inbox;

import dev.dispatcher.app.queue.BatchStrategy;
import dev.dispatcher.app.queue.BatchStrategyContract;
import dev.dispatcher.app.store.ClaimedInboxMessage;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The inbox's strategy ({@link RunHandlers}) under the strategy contract, with a handler that needs no transaction
 * and fails the named messages.
 */
class RunHandlersContractTest extends BatchStrategyContract<ClaimedInboxMessage> {

    private static final UUID TOKEN = UUID.randomUUID();

    private final AtomicInteger started = new AtomicInteger();

    @Override
    protected BatchStrategy<ClaimedInboxMessage> strategy(Set<String> failing) {
        InboxHandler handler = InboxFixture.withoutTransaction((message, context) -> {
            started.incrementAndGet();
            return failing.contains(message.id().value()) ? Mono.error(new IllegalStateException("refused"))
                    : Mono.empty();
        });
        return new RunHandlers(new RunHandlersTest.NoTransactions(), handler, RunHandlersTest.settings(2));
    }

    @Override
    protected ClaimedInboxMessage message(String name, @Nullable String key, long seq) {
        LeasedMessage leased = new LeasedMessage(MessageId.of(name), new Lease("w", TOKEN, Instant.now()), 0, 1,
                MessageStatus.PENDING, key, seq);
        return new ClaimedInboxMessage(leased, "c", "t", 0, seq, null, "E", Map.of(),
                name.getBytes(StandardCharsets.UTF_8), Instant.now(), false);
    }

    @Override
    protected String name(ClaimedInboxMessage message) {
        return message.leased().id().value();
    }

    @Override
    protected int started() {
        return started.get();
    }
}
