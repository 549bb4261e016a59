package dev.dispatcher.app.kafka;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.MessageHeaders;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.json.JsonFactory;

/**
 * CloudEvents in the structured content mode of the Kafka protocol binding 1.0, JSON event format: the value is the
 * event as one JSON object, the record key the message key, and the headers {@code content-type:
 * application/cloudevents+json; charset=UTF-8}, {@code message-id} (the event's id, for consumers that deduplicate
 * on it), then the stored headers as plain headers, never overriding those ({@code traceparent} among them: the
 * record's own trace context).
 *
 * <p>The object's members, in this order: {@code specversion}, {@code id}, {@code source}, {@code type}, {@code
 * time}, {@code subject} (keyed messages), {@code datacontenttype}, the extensions {@code correlationid}, {@code
 * causationid}, {@code traceparent}, {@code tracestate} when set ({@link OutgoingEvent}), and last the payload: as
 * {@code data}, the payload's own bytes, when the content type is JSON ({@code application/json}, {@code text/json}
 * or {@code application/<name>+json}, parameters allowed: the media types the CloudEvents Java SDK reads {@code data}
 * as JSON for) and the payload is exactly one JSON value; otherwise as {@code data_base64} (RFC 4648 base64), a
 * payload that claims to be JSON but does not parse included. An empty payload makes an event without data.
 *
 * <p>Cost: the attributes are streamed with Jackson's generator, and a JSON payload is parsed once as a token stream
 * (to check it is one value, no tree is built) and then copied as it is after {@code "data":}; a record costs one
 * copy of its payload.
 */
final class StructuredCloudEvents implements RecordFormat {

    /** The record's {@code content-type}: the JSON event format. */
    static final String CONTENT_TYPE = MessageHeaders.CLOUDEVENTS_JSON + "; charset=UTF-8";

    /** Content types whose payload goes as JSON in {@code data} (when it parses). Case-sensitive, as the SDK's rule. */
    private static final Pattern JSON_CONTENT = Pattern.compile("(application|text)/([A-Za-z]+\\+)?json(;.*)?");
    /** How a JSON payload follows the attributes: the object is left open for it. */
    private static final byte[] DATA_MEMBER = ",\"data\":".getBytes(StandardCharsets.US_ASCII);

    /**
     * Writes the attributes without closing an open object on close (the payload is appended after them); reads a
     * payload with limits no stricter than Jackson 2's defaults, which most Java consumers parse with: a payload past
     * them goes as base64, which every consumer reads.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_CONTENT)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(1000)
                    .maxNumberLength(1000)
                    .maxStringLength(20_000_000)
                    .build())
            .build();

    private final String source;

    StructuredCloudEvents(URI source) {
        this.source = Objects.requireNonNull(source, "source").toString();
    }

    @Override
    public OutboundRecord toRecord(ClaimedOutboxMessage m) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(MessageHeaders.CONTENT_TYPE, CONTENT_TYPE);
        headers.put(MessageHeaders.MESSAGE_ID, m.leased().id().value());
        m.headers().forEach(headers::putIfAbsent);
        return new OutboundRecord(m.topic(), m.key(), event(OutgoingEvent.of(m, source), m.payload()), headers);
    }

    /** The event as JSON: the attributes, then {@code payload} as {@code data} or {@code data_base64}. */
    static byte[] event(OutgoingEvent event, byte[] payload) {
        boolean json = payload.length > 0 && JSON_CONTENT.matcher(event.dataContentType()).matches()
                && isOneJsonValue(payload);
        ByteArrayOutputStream out = new ByteArrayOutputStream(json || payload.length == 0 ? 512
                : 512 + payload.length / 3 * 4 + 4);
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            g.writeStartObject();
            g.writeStringProperty(OutgoingEvent.SPECVERSION, OutgoingEvent.SPEC_VERSION);
            g.writeStringProperty(OutgoingEvent.ID, event.id());
            g.writeStringProperty(OutgoingEvent.SOURCE, event.source());
            g.writeStringProperty(OutgoingEvent.TYPE, event.type());
            g.writeStringProperty(OutgoingEvent.TIME, event.time());
            if (event.subject() != null) {
                g.writeStringProperty(OutgoingEvent.SUBJECT, event.subject());
            }
            g.writeStringProperty(OutgoingEvent.DATACONTENTTYPE, event.dataContentType());
            event.forEachExtension(g::writeStringProperty);
            if (!json) {
                if (payload.length > 0) {
                    g.writeBinaryProperty("data_base64", payload);
                }
                g.writeEndObject();
            }
        }
        if (!json) {
            return out.toByteArray();
        }
        byte[] head = out.toByteArray();
        byte[] whole = new byte[head.length + DATA_MEMBER.length + payload.length + 1];
        System.arraycopy(head, 0, whole, 0, head.length);
        System.arraycopy(DATA_MEMBER, 0, whole, head.length, DATA_MEMBER.length);
        System.arraycopy(payload, 0, whole, head.length + DATA_MEMBER.length, payload.length);
        whole[whole.length - 1] = '}';
        return whole;
    }

    /**
     * Whether {@code payload} is exactly one JSON value in UTF-8 (white space around it allowed), read as tokens with
     * every string decoded (so its UTF-8 is checked), no tree built. A byte order mark, or a NUL among the first four
     * bytes (UTF-16 or UTF-32, which Jackson would detect and read), makes it not one: its bytes could not stand in a
     * UTF-8 document as they are.
     */
    static boolean isOneJsonValue(byte[] payload) {
        if (payload.length == 0 || payload[0] < 0) {
            return false;
        }
        for (int i = 0; i < Math.min(4, payload.length); i++) {
            if (payload[i] == 0) {
                return false;
            }
        }
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), payload)) {
            JsonToken token = p.nextToken();
            int depth = 0;
            while (token != null) {
                switch (token) {
                    case START_OBJECT, START_ARRAY -> depth++;
                    case END_OBJECT, END_ARRAY -> depth--;
                    case VALUE_STRING -> p.getString();
                    default -> {
                    }
                }
                if (depth == 0) {
                    return p.nextToken() == null;
                }
                token = p.nextToken();
            }
            return false;
        } catch (JacksonException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "cloudevents-structured(" + source + ")";
    }
}
