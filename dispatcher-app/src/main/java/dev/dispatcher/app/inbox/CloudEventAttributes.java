package dev.dispatcher.app.inbox;

import dev.dispatcher.domain.MessageHeaders;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * The attributes the inbox takes from a record that is a CloudEvent (CloudEvents Kafka protocol binding 1.0): its
 * {@code id} (the message id) and {@code type} (the event type when there is no {@code event-type} header). Pure and
 * total: never throws, whatever the record holds.
 *
 * <ul>
 *   <li>Binary mode: headers {@value MessageHeaders#CE_ID} and {@value MessageHeaders#CE_SPECVERSION} (and
 *       {@value MessageHeaders#CE_TYPE}).</li>
 *   <li>Structured mode: {@code content-type} {@value MessageHeaders#CLOUDEVENTS_JSON} (parameters allowed, any case);
 *       the value is the event as a JSON object whose {@code id} is a string. Read as a stream of tokens, top level
 *       only, stopping once {@code id} and {@code type} are found (they come before {@code data} in practice),
 *       nesting bounded: a value that is not such an object (not JSON, an array, no string {@code id} before it
 *       breaks off) is not taken as an event, and the record keeps today's rule ({@code message-id}).</li>
 * </ul>
 *
 * @param id the event's id as sent (the inbox checks it is a valid message id)
 * @param type the event's type, or null
 */
record CloudEventAttributes(String id, String type) {

    /** Deepest nesting a structured event may have before parsing gives up (the event is then not taken). */
    static final int MAX_NESTING = 64;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
            .build();

    /** The event {@code headers} (last value of each name) and {@code value} make up, if the record is one. */
    static Optional<CloudEventAttributes> of(Map<String, String> headers, byte[] value) {
        String id = headers.get(MessageHeaders.CE_ID);
        if (id != null && headers.containsKey(MessageHeaders.CE_SPECVERSION)) {
            return Optional.of(new CloudEventAttributes(id, headers.get(MessageHeaders.CE_TYPE)));
        }
        return structured(headers.get(MessageHeaders.CONTENT_TYPE)) && value != null ? parse(value)
                : Optional.empty();
    }

    /** Whether {@code contentType} is {@value MessageHeaders#CLOUDEVENTS_JSON}, with or without parameters. */
    static boolean structured(String contentType) {
        if (contentType == null) {
            return false;
        }
        int params = contentType.indexOf(';');
        String mediaType = (params < 0 ? contentType : contentType.substring(0, params)).strip();
        return mediaType.toLowerCase(Locale.ROOT).equals(MessageHeaders.CLOUDEVENTS_JSON);
    }

    private static Optional<CloudEventAttributes> parse(byte[] value) {
        String id = null;
        String type = null;
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while ((id == null || type == null) && p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.VALUE_STRING && name.equals("id") && id == null) {
                    id = p.getString();
                } else if (v == JsonToken.VALUE_STRING && name.equals("type") && type == null) {
                    type = p.getString();
                } else {
                    p.skipChildren();
                }
            }
        } catch (JacksonException e) {
            // a value that breaks off: what was read before the break stands
        }
        return id == null ? Optional.empty() : Optional.of(new CloudEventAttributes(id, type));
    }
}
