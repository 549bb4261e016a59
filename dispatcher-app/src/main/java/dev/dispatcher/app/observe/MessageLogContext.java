package dev.dispatcher.app.observe;

import java.util.Map;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The message a log event is about, put on the event as key-value pairs, so that structured logging
 * ({@code logging.structured.format.console=ecs|logstash|gelf}) gives each its own JSON field: {@value #MESSAGE_ID},
 * {@value #TOPIC}, {@value #SOURCE} (the database the message lives in), {@value #CONSUMER} (inbox messages) and
 * {@value #TRACE_ID} (the trace of the W3C {@code traceparent} the message carries). A value that is not known is
 * left out, not written as null.
 *
 * <p>The pairs go on the event itself (SLF4J's {@code addKeyValue}), never into the MDC: the relay and the inbox
 * work many messages on shared threads and carry their context in Reactor's {@code Context}, so a thread-local would
 * name whichever message last ran there. The plain-text log shows the same facts in the message.
 *
 * @param messageId the message id (outbox id or inbox message id), or null
 * @param topic the topic it is published to (outbox) or was received from (inbox), or null
 * @param source the source (database) of its queue, or null
 * @param consumer the inbox consumer it belongs to, or null (outbox)
 * @param traceId the 32 hexadecimal digits of its trace, or null
 */
public record MessageLogContext(String messageId, String topic, String source, String consumer, String traceId) {

    public static final String MESSAGE_ID = "message_id";
    public static final String TOPIC = "topic";
    public static final String SOURCE = "source";
    public static final String CONSUMER = "consumer";
    public static final String TRACE_ID = "trace_id";

    /** A message's context, its trace id read from the {@code traceparent} among its {@code headers} (if any). */
    public static MessageLogContext of(String messageId, String topic, String source, String consumer,
            Map<String, String> headers) {
        return new MessageLogContext(messageId, topic, source, consumer,
                MessageTracing.traceId(headers.get(MessageTracing.TRACEPARENT)));
    }

    /** The context of a queue's own events, not about one message: its source, and its consumer for the inbox. */
    public static MessageLogContext queue(String source, String consumer) {
        return new MessageLogContext(null, null, source, consumer, null);
    }

    /** {@code event} with this context's known values as key-value pairs; log it with its message. */
    public LoggingEventBuilder on(LoggingEventBuilder event) {
        add(event, MESSAGE_ID, messageId);
        add(event, TOPIC, topic);
        add(event, SOURCE, source);
        add(event, CONSUMER, consumer);
        add(event, TRACE_ID, traceId);
        return event;
    }

    private static void add(LoggingEventBuilder event, String key, String value) {
        if (value != null) {
            event.addKeyValue(key, value);
        }
    }
}
