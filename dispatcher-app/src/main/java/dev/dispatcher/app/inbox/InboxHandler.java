package dev.dispatcher.app.inbox;

import java.net.URI;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * Processes stored inbox messages of the consumers that name it ({@code dispatcher.inbox.consumers[i].handler}).
 * Register one as a Spring bean; {@link #name()} is what configuration refers to ({@code webhook} is built in).
 *
 * <p>Transactions: for a {@linkplain #transactional() transactional} handler (the default) the processor opens a
 * READ COMMITTED transaction per message and hands its connection over as {@link HandlerContext#connection()}.
 * Write the local effect there: after {@code handle} completes, the processor writes the message's completion in
 * the same transaction and commits only if that completion was applied; otherwise (the lease was lost, another
 * worker finished the message) everything rolls back. Do not commit or close the connection.
 *
 * <p>Errors: signal {@link InboxHandlerException} to say how a failure is classified; any other error counts as
 * transient (retried with backoff, dead-lettered at the attempt limit). Never block: the returned {@code Mono}
 * runs on non-blocking threads.
 */
public interface InboxHandler {

    /** The name configuration uses. */
    String name();

    /** Handles one message; the transaction (if any) rolls back on error. Lazy: nothing runs until subscribed. */
    Mono<Void> handle(InboxMessage message, HandlerContext context);

    /**
     * Whether the handler writes to Dispatcher's database and needs the per-message transaction. Handlers with
     * only remote effects (the webhook) return {@code false}, so no connection is held while they wait.
     */
    default boolean transactional() {
        return true;
    }

    /**
     * The built-in {@code webhook} handler: POSTs each message to {@code url} with {@code Idempotency-Key: <message
     * id>} within {@code timeout}, over a pool of {@code connections} connections (the consumer's concurrency).
     */
    static InboxHandler webhook(URI url, Duration timeout, int connections) {
        return WebhookHandler.create(url, timeout, connections);
    }
}
