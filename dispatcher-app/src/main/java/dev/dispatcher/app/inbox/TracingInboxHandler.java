package dev.dispatcher.app.inbox;

import dev.dispatcher.app.observe.MessageTracing;
import io.micrometer.tracing.Span;
import reactor.core.publisher.Mono;

/**
 * Runs a handler inside a {@code CONSUMER} span whose parent is the received record's {@code traceparent}, so the
 * handling joins the trace of the publish (and of the ingest before it). The span's own {@code traceparent} is put
 * in the Reactor context under {@link MessageTracing#HANDLING_TRACEPARENT}, where the webhook handler takes it
 * for its request. The span ends with the handler's signal: an error, a cancellation (time-out) or completion.
 * A message whose span could not be recorded ({@link MessageTracing#mayRecord}) is handled without one, and the
 * webhook passes the record's own {@code traceparent} on.
 */
final class TracingInboxHandler implements InboxHandler {

    static final String SPAN_NAME = "dispatcher inbox handle";

    private final InboxHandler delegate;
    private final MessageTracing tracing;

    TracingInboxHandler(InboxHandler delegate, MessageTracing tracing) {
        this.delegate = delegate;
        this.tracing = tracing;
    }

    /** {@code handler} traced, or {@code handler} itself when tracing is off. */
    static InboxHandler traced(InboxHandler handler, MessageTracing tracing) {
        return tracing.enabled() ? new TracingInboxHandler(handler, tracing) : handler;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public boolean transactional() {
        return delegate.transactional();
    }

    @Override
    public Mono<Void> handle(InboxMessage message, HandlerContext context) {
        return Mono.defer(() -> {
            if (!tracing.mayRecord(message.headers())) {
                return delegate.handle(message, context); // nothing could be recorded: the record's context goes on
            }
            Span span = tracing.start(SPAN_NAME, Span.Kind.CONSUMER, message.headers())
                    .tag("messaging.system", "kafka")
                    .tag("messaging.consumer.group.name", message.consumer())
                    .tag("messaging.source.name", message.topic())
                    .tag("messaging.message.id", message.id().value())
                    .tag("dispatcher.handler", delegate.name())
                    .tag("dispatcher.attempt", message.attempt());
            String traceparent = MessageTracing.traceparent(span.context());
            return delegate.handle(message, context)
                    .doOnError(span::error)
                    .doFinally(signal -> span.end())
                    .contextWrite(ctx -> ctx.put(MessageTracing.HANDLING_TRACEPARENT, traceparent));
        });
    }

    @Override
    public String toString() {
        return "Traced[" + delegate + "]";
    }
}
