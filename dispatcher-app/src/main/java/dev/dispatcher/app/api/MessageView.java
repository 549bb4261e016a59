package dev.dispatcher.app.api;

import dev.dispatcher.domain.MessageStatus;
import io.r2dbc.spi.Readable;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.MediaType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** An outbox row as operators see it; {@link #toJson(boolean)} is its response shape. */
record MessageView(UUID id, long seq, String topic, String key, String type, byte[] payload, String contentType,
        String headersJson, String correlationId, String causationId, MessageStatus status, int attempts,
        Instant visibleAfter, String leaseOwner, UUID leaseToken, Instant leaseUntil, long version,
        Instant createdAt, Instant lastAttemptAt, Instant deliveredAt, Instant deadLetteredAt, String lastError) {

    static MessageView of(Readable row) {
        return new MessageView(row.get("id", UUID.class), row.get("seq", Long.class), row.get("topic", String.class),
                row.get("message_key", String.class), row.get("event_type", String.class),
                row.get("payload", byte[].class), row.get("content_type", String.class),
                row.get("headers", String.class), row.get("correlation_id", String.class),
                row.get("causation_id", String.class), MessageStatus.parse(row.get("status", String.class)),
                row.get("attempts", Integer.class), row.get("visible_after", Instant.class),
                row.get("lease_owner", String.class), row.get("lease_token", UUID.class),
                row.get("lease_until", Instant.class), row.get("version", Long.class),
                row.get("created_at", Instant.class), row.get("last_attempt_at", Instant.class),
                row.get("delivered_at", Instant.class), row.get("dead_lettered_at", Instant.class),
                row.get("last_error", String.class));
    }

    /** The strong entity tag of this version: {@code "<version>"}. */
    String etag() {
        return "\"" + version + "\"";
    }

    /** The response body; the payload only when asked (single reads), as JSON or base64 by content type. */
    Map<String, Object> toJson(boolean withPayload) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", id.toString());
        json.put("seq", seq);
        json.put("topic", topic);
        json.put("key", key);
        json.put("type", type);
        json.put("contentType", contentType);
        json.put("headers", headersJson == null ? Map.of() : IngestRequestParser.JSON.readTree(headersJson));
        json.put("correlationId", correlationId);
        json.put("causationId", causationId);
        json.put("status", status.name());
        json.put("attempts", attempts);
        json.put("version", version);
        json.put("visibleAfter", text(visibleAfter));
        json.put("leaseOwner", leaseOwner);
        json.put("leaseUntil", text(leaseUntil));
        json.put("createdAt", text(createdAt));
        json.put("lastAttemptAt", text(lastAttemptAt));
        json.put("deliveredAt", text(deliveredAt));
        json.put("deadLetteredAt", text(deadLetteredAt));
        json.put("lastError", lastError);
        json.put("payloadSize", payload.length);
        if (withPayload) {
            putPayload(json);
        }
        return json;
    }

    private void putPayload(Map<String, Object> json) {
        if (isJson(contentType)) {
            try {
                JsonNode tree = IngestRequestParser.JSON.readTree(payload);
                json.put("payload", tree);
                return;
            } catch (JacksonException e) {
                // written by an application as JSON but not parseable: show the bytes
            }
        }
        json.put("payloadBase64", Base64.getEncoder().encodeToString(payload));
    }

    /** State recorded in audit rows (no payload). */
    Map<String, Object> auditState() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("status", status.name());
        state.put("version", version);
        state.put("attempts", attempts);
        state.put("visible_after", text(visibleAfter));
        state.put("lease_owner", leaseOwner);
        state.put("lease_token", leaseToken == null ? null : leaseToken.toString());
        state.put("lease_until", text(leaseUntil));
        state.put("last_error", lastError);
        return state;
    }

    static boolean isJson(String contentType) {
        try {
            MediaType media = MediaType.parseMediaType(contentType);
            return media.getSubtype().equals("json") || media.getSubtype().endsWith("+json");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
