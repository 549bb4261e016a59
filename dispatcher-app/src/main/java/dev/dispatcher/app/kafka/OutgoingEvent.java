package dev.dispatcher.app.kafka;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.MessageHeaders;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The CloudEvents attributes (specification 1.0) of a claimed outbox row, as both CloudEvents formats write them:
 * {@code id} the message id, {@code source} the configured source, {@code type} the event type, {@code time} the
 * row's {@code created_at} (RFC 3339, UTC), {@code subject} the message key when there is one, {@code
 * datacontenttype} the row's content type, and the extension attributes {@code correlationid} and {@code
 * causationid} (the row's correlation and causation ids) and {@code traceparent} / {@code tracestate} (the
 * distributed-tracing extension: the trace context stored with the message, where the event started; the record's
 * own {@code traceparent} header is the publish's, as for any Kafka record).
 *
 * <p>The attribute names here are the structured mode's JSON members and, prefixed with {@code ce_}, the binary
 * mode's headers.
 */
record OutgoingEvent(
        String id,
        String source,
        String type,
        String time,
        @Nullable String subject,
        String dataContentType,
        @Nullable String correlationId,
        @Nullable String causationId,
        @Nullable String traceparent,
        @Nullable String tracestate) {

    /** The CloudEvents specification version every event declares. */
    static final String SPEC_VERSION = "1.0";

    static final String SPECVERSION = "specversion";
    static final String ID = "id";
    static final String SOURCE = "source";
    static final String TYPE = "type";
    static final String TIME = "time";
    static final String SUBJECT = "subject";
    static final String DATACONTENTTYPE = "datacontenttype";
    static final String CORRELATIONID = "correlationid";
    static final String CAUSATIONID = "causationid";
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    /** The W3C trace-context header that goes with {@code traceparent}, when the producer stored one. */
    static final String TRACESTATE_HEADER = "tracestate";

    /** The event of {@code m}, with {@code source} as its source. */
    static OutgoingEvent of(ClaimedOutboxMessage m, String source) {
        return new OutgoingEvent(m.leased().id().value(), source, m.eventType(), m.createdAt().toString(), m.key(),
                m.contentType(), m.correlationId(), m.causationId(), m.headers().get(MessageHeaders.TRACEPARENT),
                m.headers().get(TRACESTATE_HEADER));
    }

    /** Calls {@code action} with the name and value of each extension attribute that is set, in a fixed order. */
    void forEachExtension(BiConsumer<String, String> action) {
        if (correlationId != null) {
            action.accept(CORRELATIONID, correlationId);
        }
        if (causationId != null) {
            action.accept(CAUSATIONID, causationId);
        }
        if (traceparent != null) {
            action.accept(TRACEPARENT, traceparent);
        }
        if (tracestate != null) {
            action.accept(TRACESTATE, tracestate);
        }
    }
}
