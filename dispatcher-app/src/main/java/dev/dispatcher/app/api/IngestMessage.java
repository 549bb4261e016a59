package dev.dispatcher.app.api;

import java.util.UUID;

/**
 * One validated ingest item, ready to insert: every text is within its limit and free of NUL, the payload is the
 * stored bytes (compact JSON, or decoded base64).
 *
 * @param id the client's id, or one generated for this request
 * @param clientId whether the client chose {@code id} (only then can a repeat be recognised)
 * @param headersJson the headers as a JSON object text, or {@code null} for none
 */
record IngestMessage(UUID id, boolean clientId, String topic, String key, String type, byte[] payload,
        String contentType, String headersJson, String correlationId, String causationId) {

    /**
     * This message with a {@code traceparent} header, unless it has one: the ingest request's span becomes the
     * parent of the message's publish span. A {@code traceparent} the producer put in {@code headers} wins.
     *
     * <p>{@code headersJson} is the parser's compact object text, so a header named {@code traceparent} appears
     * as {@code "traceparent":} right after {@code {} or {@code ,}; the same text inside a value is escaped
     * ({@code \"}). {@code traceparent} is hex digits and dashes, so it needs no escaping.
     */
    IngestMessage withTraceparent(String traceparent) {
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
                causationId);
    }
}
