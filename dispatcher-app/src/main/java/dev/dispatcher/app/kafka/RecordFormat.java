package dev.dispatcher.app.kafka;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import java.net.URI;

/**
 * How the relay turns a claimed outbox row into its Kafka record ({@code dispatcher.relay.format}). The record key
 * is the message key in every format, and the {@code message-id} header carries the message id in every format (the
 * inbox and existing consumers deduplicate on it); the stored headers follow the format's own and never override
 * them.
 *
 * <ul>
 *   <li>{@link #plain()}: the payload as the value; headers {@code message-id}, {@code event-type}, {@code
 *       content-type}, {@code correlation-id}, {@code causation-id} (when set), then the stored headers.</li>
 *   <li>{@link #cloudEventsBinary}: a CloudEvent in the binary content mode of the CloudEvents Kafka protocol binding
 *       1.0: the payload as the value, the attributes in {@code ce_} headers ({@link BinaryCloudEvents}).</li>
 *   <li>{@link #cloudEventsStructured}: a CloudEvent in the structured content mode: the event as JSON in the value
 *       ({@link StructuredCloudEvents}).</li>
 * </ul>
 *
 * <p>Pure and thread-safe: the relay formats each record where it builds its lanes.
 */
public sealed interface RecordFormat permits PlainFormat, BinaryCloudEvents, StructuredCloudEvents {

    /** The record of {@code message}, on its own topic. */
    OutboundRecord toRecord(ClaimedOutboxMessage message);

    /** Today's records: the payload as the value, Dispatcher's headers. */
    static RecordFormat plain() {
        return PlainFormat.INSTANCE;
    }

    /** CloudEvents in binary content mode, {@code source} as every event's {@code source}. */
    static RecordFormat cloudEventsBinary(URI source) {
        return new BinaryCloudEvents(source);
    }

    /** CloudEvents in structured content mode (JSON event format), {@code source} as every event's {@code source}. */
    static RecordFormat cloudEventsStructured(URI source) {
        return new StructuredCloudEvents(source);
    }
}
