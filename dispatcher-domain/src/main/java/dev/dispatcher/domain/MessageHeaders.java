package dev.dispatcher.domain;

import java.util.List;

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

    /** Set by the relay; stored headers never override them. */
    public static final List<String> RESERVED = List.of(MESSAGE_ID, EVENT_TYPE, CONTENT_TYPE, CORRELATION_ID,
            CAUSATION_ID);
}
