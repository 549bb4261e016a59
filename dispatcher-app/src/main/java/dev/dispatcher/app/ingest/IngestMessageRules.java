package dev.dispatcher.app.ingest;

import static dev.dispatcher.app.ingest.IngestRequestParser.JSON;

import dev.dispatcher.app.store.IngestMessage;
import dev.dispatcher.domain.DeliveryTime;
import dev.dispatcher.domain.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules an ingest message's fields must keep, checked on an item {@link IngestRequestParser} has read; a broken
 * rule is an {@link IngestProblem} that names the field. Limits, chosen so a record's key and headers fit in {@link
 * IngestRequestParser#RECORD_OVERHEAD_MARGIN} beside its payload: topic by Kafka's rules (1 to 249 of {@code
 * [a-zA-Z0-9._-]}, not {@code .} or {@code ..}); key at most {@value #MAX_KEY_BYTES} UTF-8 bytes; type, content type
 * and correlation/causation ids at most {@value #MAX_TEXT_BYTES}; at most {@value #MAX_HEADERS} headers, names at
 * most {@value #MAX_TEXT_BYTES} bytes, values at most {@value #MAX_HEADER_VALUE_BYTES}, all together at most
 * {@value #MAX_HEADERS_BYTES}; the names the relay writes itself are reserved ({@link MessageHeaders#isReserved}: a
 * producer's {@code ce_id} would otherwise reach a consumer as a CloudEvent's id). No text may hold NUL or an
 * unpaired surrogate (PostgreSQL text cannot store them). A payload is any JSON value for a JSON content type,
 * otherwise a base64 string, at most {@code dispatcher.ingest.max-payload-size} once decoded. {@code deliverAt}
 * (ISO-8601 instant) or {@code delay} (ISO-8601 duration), not both, follow {@link DeliveryTime}'s rules against the
 * clock given here and {@code dispatcher.ingest.max-delay}; the message carries the resulting delay, which SQL adds
 * to the database clock. Stateless and thread-safe.
 */
final class IngestMessageRules {

    static final int MAX_KEY_BYTES = 1024;
    static final int MAX_TEXT_BYTES = 255;
    static final int MAX_HEADERS = 64;
    static final int MAX_HEADER_VALUE_BYTES = 4096;
    static final int MAX_HEADERS_BYTES = 16 * 1024;
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final long maxPayloadBytes;
    private final Duration maxDelay;
    private final Clock clock;

    IngestMessageRules(long maxPayloadBytes, Duration maxDelay, Clock clock) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.maxDelay = maxDelay;
        this.clock = clock;
    }

    /** The message {@code item} holds, once every rule passed; {@code at} prefixes its fields' names. */
    IngestMessage message(IngestRequestParser.RawItem item, String at) {
        if (item.notAnObject() != null) {
            throw new IngestProblem.Invalid(at.isEmpty() ? "$" : at.substring(0, at.length() - 1),
                    "a message must be a JSON object, but was " + item.notAnObject());
        }
        if (item.unknownField() != null) {
            throw new IngestProblem.Invalid(at + item.unknownField(), "unknown field '" + printable(item.unknownField())
                    + "'; known fields are id, topic, key, type, payload, contentType, headers, correlationId,"
                    + " causationId, deliverAt, delay");
        }
        return message(item.fields(), item.payload(), at);
    }

    private IngestMessage message(ObjectNode object, byte[] payloadJson, String at) {
        UUID id = null;
        String idText = optionalText(object, at, "id", 36);
        if (idText != null) {
            if (!UUID_TEXT.matcher(idText).matches()) {
                throw new IngestProblem.Invalid(at + "id", "id must be a UUID such as 0b5c5a8e-3f0e-4c8e-9a7e-4f5f0c1d2e3f");
            }
            id = UUID.fromString(idText);
        }
        String topic = requiredText(object, at, "topic", 249);
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IngestProblem.Invalid(at + "topic", "topic must be a Kafka topic name: 1 to 249 letters, digits,"
                    + " '.', '_' or '-', and not '.' or '..'");
        }
        String key = optionalText(object, at, "key", MAX_KEY_BYTES);
        String type = requiredText(object, at, "type", MAX_TEXT_BYTES);
        String contentType = optionalText(object, at, "contentType", MAX_TEXT_BYTES);
        boolean json = true;
        if (contentType != null) {
            MediaType media;
            try {
                media = MediaType.parseMediaType(contentType);
            } catch (InvalidMediaTypeException e) {
                throw new IngestProblem.Invalid(at + "contentType", "contentType must be a media type such as"
                        + " application/json or application/avro");
            }
            if (media.isWildcardType() || media.isWildcardSubtype()) {
                throw new IngestProblem.Invalid(at + "contentType", "contentType must be a concrete media type, not a"
                        + " wildcard");
            }
            json = media.getSubtype().equals("json") || media.getSubtype().endsWith("+json");
        }
        byte[] payload = payload(payloadJson, at, json);
        return new IngestMessage(id == null ? UUID.randomUUID() : id, id != null, topic, key, type, payload,
                contentType, headers(object.get("headers"), at),
                optionalText(object, at, "correlationId", MAX_TEXT_BYTES),
                optionalText(object, at, "causationId", MAX_TEXT_BYTES), delayMillis(object, at));
    }

    /** The delay of {@code deliverAt}/{@code delay} in milliseconds, or {@code null} for none. */
    private Long delayMillis(ObjectNode object, String at) {
        String deliverAt = optionalText(object, at, DeliveryTime.DELIVER_AT, 64);
        String delay = optionalText(object, at, DeliveryTime.DELAY, 64);
        try {
            long millis = DeliveryTime.of(
                    deliverAt == null ? null : parse(at, DeliveryTime.DELIVER_AT, deliverAt, Instant::parse,
                            "an ISO-8601 instant such as 2026-03-01T12:00:00Z"),
                    delay == null ? null : parse(at, DeliveryTime.DELAY, delay, Duration::parse,
                            "an ISO-8601 duration such as PT30S or PT2H"))
                    .delayMillis(clock.instant(), maxDelay);
            return millis == 0 ? null : millis;
        } catch (DeliveryTime.InvalidDeliveryTimeException e) {
            throw new IngestProblem.Invalid(at + e.field(), e.getMessage());
        }
    }

    private static <T> T parse(String at, String field, String text, java.util.function.Function<String, T> parser,
            String form) {
        try {
            return parser.apply(text);
        } catch (DateTimeParseException e) {
            throw new IngestProblem.Invalid(at + field, field + " must be " + form);
        }
    }

    private byte[] payload(byte[] payloadJson, String at, boolean json) {
        if (payloadJson == null) {
            throw new IngestProblem.Invalid(at + "payload", "payload is required (any JSON value for a JSON content type,"
                    + " otherwise a base64 string)");
        }
        byte[] bytes;
        if (json) {
            bytes = payloadJson;
        } else {
            JsonNode node = JSON.readTree(payloadJson); // JSON this parser wrote, within maxPayloadJsonBytes
            if (!node.isString()) {
                throw new IngestProblem.Invalid(at + "payload", "payload must be a base64 string when contentType is not"
                        + " JSON, but was " + kind(node));
            }
            try {
                bytes = Base64.getDecoder().decode(node.asString());
            } catch (IllegalArgumentException e) {
                throw new IngestProblem.Invalid(at + "payload", "payload is not valid base64: " + e.getMessage());
            }
        }
        if (bytes.length > maxPayloadBytes) {
            throw new IngestProblem.TooLarge(at + "payload", "payload is " + bytes.length
                    + " bytes, more than dispatcher.ingest.max-payload-size (" + maxPayloadBytes + " bytes)");
        }
        return bytes;
    }

    private static String headers(JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!(node instanceof ObjectNode object)) {
            throw new IngestProblem.Invalid(at + "headers", "headers must be a JSON object of string values, but was "
                    + kind(node));
        }
        if (object.size() > MAX_HEADERS) {
            throw new IngestProblem.Invalid(at + "headers", "at most " + MAX_HEADERS + " headers are allowed, but there"
                    + " were " + object.size());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, JsonNode> header : object.properties()) {
            String name = header.getKey();
            String field = at + "headers." + printable(name);
            checkText(field, "header name", name, MAX_TEXT_BYTES);
            if (name.isEmpty()) {
                throw new IngestProblem.Invalid(field, "header names must not be empty");
            }
            if (MessageHeaders.isReserved(name)) {
                throw new IngestProblem.Invalid(field, "header '" + printable(name) + "' is reserved: the relay"
                        + " writes " + String.join(", ", MessageHeaders.RESERVED) + " and every header starting "
                        + String.join(" or ", MessageHeaders.RESERVED_PREFIXES) + " itself (in any case)");
            }
            JsonNode value = header.getValue();
            if (!value.isString()) {
                throw new IngestProblem.Invalid(field, "header values must be strings, but was " + kind(value));
            }
            checkText(field, "header value", value.asString(), MAX_HEADER_VALUE_BYTES);
            total += utf8Length(name) + utf8Length(value.asString());
            headers.put(name, value.asString());
        }
        if (total > MAX_HEADERS_BYTES) {
            throw new IngestProblem.Invalid(at + "headers", "headers take " + total + " bytes, more than "
                    + MAX_HEADERS_BYTES);
        }
        return headers.isEmpty() ? null : JSON.writeValueAsString(headers);
    }

    private static String requiredText(ObjectNode object, String at, String name, int maxBytes) {
        String value = optionalText(object, at, name, maxBytes);
        if (value == null) {
            throw new IngestProblem.Invalid(at + name, name + " is required");
        }
        return value;
    }

    private static String optionalText(ObjectNode object, String at, String name, int maxBytes) {
        JsonNode node = object.get(name);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isString()) {
            throw new IngestProblem.Invalid(at + name, name + " must be a string, but was " + kind(node));
        }
        String value = node.asString();
        if (value.isBlank()) {
            throw new IngestProblem.Invalid(at + name, name + " must not be blank");
        }
        checkText(at + name, name, value, maxBytes);
        return value;
    }

    private static void checkText(String field, String what, String value, int maxBytes) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\0') {
                throw new IngestProblem.Invalid(field, what + " must not contain NUL (\\u0000)");
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IngestProblem.Invalid(field, what + " must not contain an unpaired UTF-16 surrogate");
            }
        }
        int bytes = utf8Length(value);
        if (bytes > maxBytes) {
            throw new IngestProblem.Invalid(field, what + " is " + bytes + " bytes (UTF-8), more than " + maxBytes);
        }
    }

    private static int utf8Length(String value) {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }

    /** A node's kind as a problem names it ({@code string}, {@code object}, {@code absent}). */
    static String kind(JsonNode node) {
        return node == null ? "absent" : node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** A name as it may be echoed in a problem: control characters replaced, at most 64 characters. */
    static String printable(String name) {
        String cleaned = name.codePoints().map(cp -> Character.isISOControl(cp) ? '?' : cp)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return cleaned.length() > 64 ? cleaned.substring(0, 64) + "..." : cleaned;
    }
}
