package dev.dispatcher.app.kafka;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.MessageHeaders;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * CloudEvents in the binary content mode of the Kafka protocol binding 1.0: the value is the payload as stored, the
 * record key the message key, and the event's attributes ({@link OutgoingEvent}) are headers: {@code
 * ce_specversion} ({@value OutgoingEvent#SPEC_VERSION}), {@code ce_id}, {@code ce_source}, {@code ce_type}, {@code
 * ce_time}, {@code ce_subject} (keyed messages), {@code content-type} (the binding's {@code datacontenttype}), then
 * the extensions {@code ce_correlationid}, {@code ce_causationid}, {@code ce_traceparent}, {@code ce_tracestate} when
 * set. Then {@code message-id} (the same id, for consumers that deduplicate on it), then the stored headers as plain
 * headers, never overriding those ({@code traceparent} among them: the record's own trace context).
 */
final class BinaryCloudEvents implements RecordFormat {

    /** What the binding puts before an attribute's name to make its header's. */
    static final String PREFIX = "ce_";

    private final String source;

    BinaryCloudEvents(URI source) {
        this.source = Objects.requireNonNull(source, "source").toString();
    }

    @Override
    public OutboundRecord toRecord(ClaimedOutboxMessage m) {
        OutgoingEvent event = OutgoingEvent.of(m, source);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(PREFIX + OutgoingEvent.SPECVERSION, OutgoingEvent.SPEC_VERSION);
        headers.put(PREFIX + OutgoingEvent.ID, event.id());
        headers.put(PREFIX + OutgoingEvent.SOURCE, event.source());
        headers.put(PREFIX + OutgoingEvent.TYPE, event.type());
        headers.put(PREFIX + OutgoingEvent.TIME, event.time());
        if (event.subject() != null) {
            headers.put(PREFIX + OutgoingEvent.SUBJECT, event.subject());
        }
        headers.put(MessageHeaders.CONTENT_TYPE, event.dataContentType());
        event.forEachExtension((name, value) -> headers.put(PREFIX + name, value));
        headers.put(MessageHeaders.MESSAGE_ID, event.id());
        m.headers().forEach(headers::putIfAbsent);
        return new OutboundRecord(m.topic(), m.key(), m.payload(), headers);
    }

    @Override
    public String toString() {
        return "cloudevents-binary(" + source + ")";
    }
}
