package dev.dispatcher.load.inprocess;

import dev.dispatcher.app.inbox.HandlerContext;
import dev.dispatcher.app.inbox.InboxHandler;
import dev.dispatcher.app.inbox.InboxMessage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The inbox benchmark's in-process handler, an application's {@link InboxHandler} bean named {@value #NAME}: one
 * row per message into {@code bench_effect}, in the message's own transaction (with its completion, one durable
 * commit per message); a transient failure for every record of {@code failingKey} (null: none).
 */
final class InsertOneRow implements InboxHandler {

    static final String NAME = "bench-sql";

    private final String failingKey;

    InsertOneRow(String failingKey) {
        this.failingKey = failingKey;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Mono<Void> handle(InboxMessage message, HandlerContext context) {
        if (failingKey != null && failingKey.equals(message.key())) {
            return Mono.error(new IllegalStateException("the failing key's downstream is down"));
        }
        return Flux.from(context.connection().createStatement(
                        "INSERT INTO bench_effect (message_id, message_key) VALUES ($1, $2)")
                        .bind("$1", message.id().value()).bind("$2", message.key()).execute())
                .flatMap(result -> result.getRowsUpdated())
                .then();
    }
}
