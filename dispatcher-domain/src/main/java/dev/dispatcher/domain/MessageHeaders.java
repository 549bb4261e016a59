package dev.dispatcher.domain;

import java.util.List;
import java.util.Locale;

/**
 * The header names Dispatcher sets on every Kafka record it publishes and reads back in the inbox: one place, so the
 * relay, the inbox, the webhook and the ingest rules cannot drift apart.
 */
public final class MessageHeaders {

    private MessageHeaders() {
    }

    /** The stable message id (the outbox row's id); the inbox deduplicates on it. */
    public static final String MESSAGE_ID = "message-id";
    public static final String EVENT_TYPE = "event-type";
    public static final String CONTENT_TYPE = "content-type";
    public static final String CORRELATION_ID = "correlation-id";
    public static final String CAUSATION_ID = "causation-id";
    /** W3C trace context, carried as a stored header when the producer sent one. */
    public static final String TRACEPARENT = "traceparent";

    /** Set by the relay from the row's own columns; stored headers never override them. */
    public static final List<String> RESERVED = List.of(MESSAGE_ID, EVENT_TYPE, CONTENT_TYPE, CORRELATION_ID,
            CAUSATION_ID);
    /**
     * Prefixes of header names the relay and the inbox write themselves: {@code ce_}, the CloudEvents attributes of
     * binary mode (the inbox reads {@link #CE_ID} as an id), and {@code dispatcher-}, the dead-letter records'.
     */
    public static final List<String> RESERVED_PREFIXES = List.of("ce_", "dispatcher-");

    /**
     * Whether a producer may not give a message a header named {@code name} (in any case): one of {@link #RESERVED},
     * or a name under one of {@link #RESERVED_PREFIXES}. Trace context ({@link #TRACEPARENT}, {@code tracestate})
     * is not reserved: it is the parent of the relay's publish span, whose own context the record then carries.
     */
    public static boolean isReserved(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (RESERVED.contains(lower)) {
            return true;
        }
        for (String prefix : RESERVED_PREFIXES) {
            if (lower.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** CloudEvents Kafka protocol binding 1.0, binary mode: the event id. The inbox takes it as the message id. */
    public static final String CE_ID = "ce_id";
    /** CloudEvents binary mode: the spec version; with {@link #CE_ID} it marks a record as a binary-mode event. */
    public static final String CE_SPECVERSION = "ce_specversion";
    /** CloudEvents binary mode: the event type. */
    public static final String CE_TYPE = "ce_type";
    /**
     * The {@code content-type} of a CloudEvents structured-mode record (parameters may follow): the value is the
     * event as JSON, its attributes ({@code id}, {@code type}, ...) at the top level.
     */
    public static final String CLOUDEVENTS_JSON = "application/cloudevents+json";

    /** On a record published to a dead-letter topic: why its message was dead-lettered. */
    public static final String DEAD_LETTER_REASON = "dispatcher-dead-letter-reason";
    /** On a record published to a dead-letter topic: the attempts spent on its message, in decimal. */
    public static final String DEAD_LETTER_ATTEMPTS = "dispatcher-attempts";
    /** On a record published to a dead-letter topic: the topic its message came from (inbox) or was meant for. */
    public static final String DEAD_LETTER_ORIGINAL_TOPIC = "dispatcher-original-topic";
    /**
     * On a record published to a dead-letter topic whose message's key is not text (the inbox keeps such keys as
     * bytes): the key in base64; the dead-letter record itself then has no key.
     */
    public static final String DEAD_LETTER_ORIGINAL_KEY_BASE64 = "dispatcher-original-key-base64";
}
