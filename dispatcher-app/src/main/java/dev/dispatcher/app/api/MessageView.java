package dev.dispatcher.app.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.dispatcher.app.store.OutboxOperatorRow;
import java.util.Base64;
import java.util.Map;
import org.springframework.http.MediaType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * An outbox row as operators see it: the response body of {@code GET /v1/messages/{id}}, of the list's items and
 * of the mutations. The payload appears only on single reads, as JSON ({@code payload}) when the content type is
 * JSON and it parses, else as base64 ({@code payloadBase64}).
 */
record MessageView(String id, long seq, String topic, String key, String type, String contentType, Object headers,
        String correlationId, String causationId, String status, int attempts, long version, String visibleAfter,
        String leaseOwner, String leaseUntil, String createdAt, String lastAttemptAt, String deliveredAt,
        String deadLetteredAt, String lastError, int payloadSize,
        @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode payload,
        @JsonInclude(JsonInclude.Include.NON_NULL) String payloadBase64) {

    /** The view of {@code entry}; the payload only when asked (single reads). */
    static MessageView of(OutboxOperatorRow entry, boolean withPayload) {
        JsonNode json = null;
        String base64 = null;
        if (withPayload) {
            json = isJson(entry.contentType()) ? parse(entry.payload()) : null;
            base64 = json == null ? Base64.getEncoder().encodeToString(entry.payload()) : null;
        }
        return new MessageView(entry.id().toString(), entry.seq(), entry.topic(), entry.key(), entry.type(),
                entry.contentType(),
                entry.headersJson() == null ? Map.of() : ApiJson.JSON.readTree(entry.headersJson()),
                entry.correlationId(), entry.causationId(), entry.status().name(), entry.attempts(), entry.version(),
                text(entry.visibleAfter()), entry.leaseOwner(), text(entry.leaseUntil()), text(entry.createdAt()),
                text(entry.lastAttemptAt()), text(entry.deliveredAt()), text(entry.deadLetteredAt()),
                entry.lastError(), entry.payload().length, json, base64);
    }

    /** The strong entity tag of a version: {@code "<version>"}. */
    static String etag(OutboxOperatorRow entry) {
        return "\"" + entry.version() + "\"";
    }

    private static JsonNode parse(byte[] payload) {
        try {
            return ApiJson.JSON.readTree(payload);
        } catch (JacksonException e) {
            return null; // written by an application as JSON but not parseable: show the bytes
        }
    }

    static boolean isJson(String contentType) {
        try {
            MediaType media = MediaType.parseMediaType(contentType);
            return media.getSubtype().equals("json") || media.getSubtype().endsWith("+json");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String text(java.time.Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
