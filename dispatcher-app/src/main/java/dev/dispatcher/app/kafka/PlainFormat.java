package dev.dispatcher.app.kafka;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.MessageHeaders;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Dispatcher's own record: the payload as the value, the message key as the key, headers {@code message-id}, {@code
 * event-type}, {@code content-type}, {@code correlation-id} and {@code causation-id} (when set), then the stored
 * headers ({@code traceparent} among them when the producer sent one), which never override those five.
 */
final class PlainFormat implements RecordFormat {

    static final PlainFormat INSTANCE = new PlainFormat();

    private PlainFormat() {
    }

    @Override
    public OutboundRecord toRecord(ClaimedOutboxMessage m) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(MessageHeaders.MESSAGE_ID, m.leased().id().value());
        headers.put(MessageHeaders.EVENT_TYPE, m.eventType());
        headers.put(MessageHeaders.CONTENT_TYPE, m.contentType());
        if (m.correlationId() != null) {
            headers.put(MessageHeaders.CORRELATION_ID, m.correlationId());
        }
        if (m.causationId() != null) {
            headers.put(MessageHeaders.CAUSATION_ID, m.causationId());
        }
        m.headers().forEach(headers::putIfAbsent);
        return new OutboundRecord(m.topic(), m.key(), m.payload(), headers);
    }

    @Override
    public String toString() {
        return "plain";
    }
}
