package dev.dispatcher.app.store;

import java.util.UUID;

/**
 * One validated ingest item, ready to insert: every text is within its limit and free of NUL, the payload is the
 * stored bytes (compact JSON, or decoded base64).
 *
 * @param id the client's id, or one generated for this request (generated before the write, so a write repeated
 *     after an ambiguous failure finds its own row instead of inserting a second one)
 * @param clientId whether the client chose {@code id} (only then can a later request repeat it)
 * @param headersJson the headers as a JSON object text, or {@code null} for none
 * @param delayMillis how long after the insert the relay may publish it, in milliseconds, or {@code null} for at
 *     once (from {@code deliverAt}/{@code delay}; the database adds it to its own clock)
 */
public record IngestMessage(UUID id, boolean clientId, String topic, String key, String type, byte[] payload,
        String contentType, String headersJson, String correlationId, String causationId, Long delayMillis) {

    /**
     * This message with a {@code traceparent} header, unless it has one: the ingest request's span becomes the
     * parent of the message's publish span. A {@code traceparent} the producer put in {@code headers} wins.
     *
     * <p>{@code headersJson} is the parser's compact object text, so a header named {@code traceparent} appears
     * as {@code "traceparent":} right after {@code {} or {@code ,}; the same text inside a value is escaped
     * ({@code \"}). {@code traceparent} is hex digits and dashes, so it needs no escaping.
     */
    public IngestMessage withTraceparent(String traceparent) {
        if (traceparent == null) {
            return this;
        }
        String headers;
        if (headersJson == null) {
            headers = "{\"traceparent\":\"" + traceparent + "\"}";
        } else if (headersJson.startsWith("{\"traceparent\":") || headersJson.contains(",\"traceparent\":")) {
            return this;
        } else {
            headers = "{\"traceparent\":\"" + traceparent + "\"," + headersJson.substring(1);
        }
        return new IngestMessage(id, clientId, topic, key, type, payload, contentType, headers, correlationId,
                causationId, delayMillis);
    }
}
