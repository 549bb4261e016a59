package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The structured-mode event is always one JSON object in valid UTF-8 that gives back every attribute and the
 * payload's exact bytes: as {@code data} (copied as they are) when the content type is JSON and the payload is one
 * JSON value, as decided by an independent strict reader (Jackson's tree and the JDK's UTF-8 decoder), else as
 * {@code data_base64}.
 */
class StructuredCloudEventsPropertiesTest {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final List<String> JSON_TYPES = List.of("application/json", "text/json",
            "application/json; charset=utf-8", "application/problem+json");

    @Provide
    Arbitrary<byte[]> payloads() {
        Arbitrary<byte[]> json = jsonValues().map(v -> v.getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> broken = Combinators.combine(json, Arbitraries.integers().between(0, 1000),
                Arbitraries.bytes()).as((bytes, at, b) -> {
                    byte[] copy = Arrays.copyOf(bytes, bytes.length + 1);
                    int i = at % copy.length;
                    System.arraycopy(bytes, i, copy, i + 1, bytes.length - i);
                    copy[i] = b;
                    return copy;
                });
        Arbitrary<byte[]> cut = json.filter(b -> b.length > 1).map(b -> Arrays.copyOf(b, b.length / 2));
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        return Arbitraries.frequencyOf(
                Tuple.of(4, json), Tuple.of(2, broken), Tuple.of(1, cut),
                Tuple.of(2, random));
    }

    /** JSON values as text: scalars, strings of any character, nested arrays and objects. */
    private Arbitrary<String> jsonValues() {
        Arbitrary<String> scalars = Arbitraries.oneOf(
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf),
                Arbitraries.of("true", "false", "null", "-0", "1e400", "0.5E-3"),
                texts().map(StructuredCloudEventsPropertiesTest::quoted));
        return Arbitraries.recursive(() -> scalars, values -> Arbitraries.oneOf(
                values.list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]"),
                Combinators.combine(texts().list().ofMaxSize(4), values.list().ofSize(4)).as((keys, vals) -> {
                    StringBuilder s = new StringBuilder("{");
                    for (int i = 0; i < keys.size(); i++) {
                        s.append(i == 0 ? "" : ",").append(quoted(keys.get(i))).append(" : ").append(vals.get(i));
                    }
                    return s.append('}').toString();
                })), 0, 3);
    }

    /** Any text PostgreSQL could hold and Java can encode: no lone surrogate halves. */
    private static Arbitrary<String> texts() {
        return Arbitraries.strings().all().ofMaxLength(12)
                .filter(t -> t.chars().noneMatch(c -> Character.isSurrogate((char) c)));
    }

    @Provide
    Arbitrary<String> contentTypes() {
        return Arbitraries.oneOf(Arbitraries.of(JSON_TYPES), Arbitraries.of("text/plain", "application/octet-stream",
                "Application/JSON", "application/vnd.shop.v1+json", "application/jsonx"));
    }

    @Provide
    Arbitrary<Optional<String>> optionalTexts() {
        return texts().optional(0.7);
    }

    @Property(tries = 2000)
    void theEventIsOneUtf8JsonObjectGivingBackEveryAttributeAndThePayloadsBytes(
            @ForAll("payloads") byte[] payload,
            @ForAll("contentTypes") String contentType,
            @ForAll("optionalTexts") Optional<String> key,
            @ForAll("optionalTexts") Optional<String> correlationId,
            @ForAll("optionalTexts") Optional<String> traceparent) throws Exception {
        ClaimedOutboxMessage row = RecordFormatTest.row(key.orElse(null), payload, contentType,
                traceparent.map(t -> Map.of("traceparent", t)).orElse(Map.of()), correlationId.orElse(null), null);

        byte[] value = RecordFormat.cloudEventsStructured(URI.create("urn:shop:orders")).toRecord(row).value();

        assertThat(strictUtf8(value)).as("the event is valid UTF-8").isTrue();
        JsonNode event = strictlyOneValue(value).orElseThrow(() -> new AssertionError("not one JSON value: "
                + new String(value, StandardCharsets.UTF_8)));
        assertThat(event.isObject()).isTrue();
        assertThat(event.get("specversion").asString()).isEqualTo("1.0");
        assertThat(event.get("id").asString()).isEqualTo(RecordFormatTest.ID);
        assertThat(event.get("source").asString()).isEqualTo("urn:shop:orders");
        assertThat(event.get("type").asString()).isEqualTo("OrderPlaced");
        assertThat(event.get("time").asString()).isEqualTo("2026-03-01T10:15:30.123456Z");
        assertThat(event.get("datacontenttype").asString()).isEqualTo(contentType);
        assertThat(Optional.ofNullable(event.get("subject")).map(JsonNode::asString)).isEqualTo(key);
        assertThat(Optional.ofNullable(event.get("correlationid")).map(JsonNode::asString)).isEqualTo(correlationId);
        assertThat(Optional.ofNullable(event.get("traceparent")).map(JsonNode::asString)).isEqualTo(traceparent);

        boolean json = JSON_TYPES.contains(contentType) && strictUtf8(payload) && noStrayControlBytes(payload)
                && strictlyOneValue(payload).isPresent();
        Statistics.label("data").collect(payload.length == 0 ? "none" : json ? "data" : "data_base64");
        if (payload.length == 0) {
            assertThat(event.has("data")).isFalse();
            assertThat(event.has("data_base64")).isFalse();
        } else if (json) {
            assertThat(event.has("data_base64")).isFalse();
            assertThat(event.get("data")).isEqualTo(strictlyOneValue(payload).orElseThrow());
            byte[] tail = Arrays.copyOfRange(value, value.length - payload.length - 1, value.length - 1);
            assertThat(tail).as("the payload's own bytes").isEqualTo(payload);
        } else {
            assertThat(event.has("data")).isFalse();
            assertThat(Base64.getDecoder().decode(event.get("data_base64").asString())).isEqualTo(payload);
        }
    }

    @Example
    void aNulBeforeAValueIsNotTakenAsJson() {
        // JSON's white space is space, tab, line feed and carriage return; Jackson's parser passes over a NUL here
        assertThat(StructuredCloudEvents.isOneJsonValue(new byte[] {0, '0'})).isFalse();
        assertThat(StructuredCloudEvents.isOneJsonValue(new byte[] {'0', 0})).isFalse();
    }

    @Example
    void aSurrogateEncodedInUtf8IsNotTakenAsJson() {
        // CESU-8: a lone surrogate half written as three bytes, which UTF-8 forbids
        assertThat(StructuredCloudEvents.isOneJsonValue(new byte[] {'"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"'}))
                .isFalse();
    }

    private static Optional<JsonNode> strictlyOneValue(byte[] bytes) {
        try (JsonParser p = MAPPER.createParser(bytes)) {
            JsonNode node = MAPPER.readTree(p);
            return node != null && !node.isMissingNode() && p.nextToken() == null ? Optional.of(node)
                    : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * No byte below 0x20 but tab, line feed and carriage return: JSON allows no other anywhere (a string escapes
     * them), though Jackson, the oracle here, passes over a NUL between tokens.
     */
    private static boolean noStrayControlBytes(byte[] bytes) {
        for (byte b : bytes) {
            if (b >= 0 && b < 0x20 && b != '\t' && b != '\n' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private static boolean strictUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static String quoted(String text) {
        return MAPPER.writeValueAsString(text);
    }
}
