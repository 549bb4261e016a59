package dev.dispatcher.app.api;

import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.media.Schema.RequiredMode;
import java.util.Map;

/**
 * The body of {@code POST /v1/messages}, and an item of {@code /batch}, as the OpenAPI document shows it. Ingest reads
 * bodies itself, strictly ({@code ingest.IngestRequestParser}: unknown or duplicate fields and trailing data are
 * {@code 400}); this type only describes its rules. {@code ApiDocsIT} checks that its fields are the ones the parser
 * knows.
 */
@Schema(description = "One message. Unknown fields, duplicate fields and trailing data are refused (400); no text may"
        + " hold NUL or an unpaired surrogate. deliverAt, delay and the traceparent header are not part of the content"
        + " compared for a repeated id")
record MessageRequest(
        @Schema(format = "uuid", example = "0b5c5a8e-3f0e-4c8e-9a7e-4f5f0c1d2e3f", description = "generated when"
                + " absent; only a client id makes a retry idempotent, while the row is retained"
                + " (dispatcher.retention.delivered)")
        String id,
        @Schema(requiredMode = RequiredMode.REQUIRED, pattern = "[a-zA-Z0-9._-]{1,249}", example = "orders",
                description = "the Kafka topic; not . or ..")
        String topic,
        @Schema(example = "order-42", description = "the Kafka key, which orders a key's messages; at most 1024 UTF-8"
                + " bytes")
        String key,
        @Schema(requiredMode = RequiredMode.REQUIRED, example = "OrderPlaced", description = "the event type, sent"
                + " as the event-type header; at most 255 bytes")
        String type,
        @Schema(requiredMode = RequiredMode.REQUIRED, example = "{\"orderId\": 42}", description = "any JSON value"
                + " when contentType is JSON (the default), stored as compact JSON; otherwise a base64 string, stored"
                + " decoded; at most dispatcher.ingest.max-payload-size (else 413)")
        Object payload,
        @Schema(example = "application/json", description = "default application/json; JSON also for */*+json;"
                + " at most 255 bytes")
        String contentType,
        @Schema(example = "{\"traceparent\": \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}",
                description = "at most 64 string values, names at most 255 bytes, values at most 4096, all at most"
                        + " 16 KiB; message-id, event-type, content-type, correlation-id and causation-id are"
                        + " reserved (the relay sets them)")
        Map<String, String> headers,
        @Schema(description = "sent as the correlation-id header; at most 255 bytes")
        String correlationId,
        @Schema(description = "sent as the causation-id header; at most 255 bytes")
        String causationId,
        @Schema(format = "date-time", example = "2026-12-01T08:00:00Z", description = "not published before this"
                + " instant: at most 30 s in the past (taken as now), at most dispatcher.ingest.max-delay ahead; not"
                + " with delay. A delayed message holds back its key's later messages")
        String deliverAt,
        @Schema(format = "duration", example = "PT30S", description = "not published before this ISO-8601 duration"
                + " has passed, at most dispatcher.ingest.max-delay; not with deliverAt")
        String delay) {
}
