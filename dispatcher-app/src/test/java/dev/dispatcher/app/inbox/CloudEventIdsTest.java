package dev.dispatcher.app.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.inbox.IntakeCheck.Verdict;
import dev.dispatcher.app.kafka.ReceivedRecord;
import dev.dispatcher.app.kafka.ReceivedRecord.Header;
import dev.dispatcher.domain.MessageId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.json.JsonMapper;

/**
 * The inbox's message id of a CloudEvent ({@link IntakeCheck}, {@link CloudEventAttributes}): {@code ce_id} in
 * binary mode, the JSON {@code id} in structured mode, when the record has no {@code message-id} header (the relay's
 * own, which comes first: a producer chooses its headers and payload, not that header); a record that only looks
 * like a structured event (not JSON, no string id) keeps today's rule, and none of it ever throws.
 */
class CloudEventIdsTest {

    private static final long LIMIT = 64 * 1024;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    // ---- binary mode

    @Example
    void aBinaryModeEventIsKnownByItsCeId() {
        Verdict v = check(List.of(header("ce_specversion", "1.0"), header("ce_id", "evt-1"),
                header("ce_type", "com.example.Placed")), utf8("{}"));

        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().id()).isEqualTo(MessageId.of("evt-1"));
        assertThat(v.row().eventType()).isEqualTo("com.example.Placed");
    }

    @Example
    void theRelaysMessageIdHeaderWinsOverACeIdAProducerChose() {
        Verdict v = check(List.of(header("message-id", "m-1"), header("ce_id", "victim-1"),
                header("ce_specversion", "1.0"), header("ce_type", "com.example.Placed")), utf8("{}"));

        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().id()).isEqualTo(MessageId.of("m-1"));
        assertThat(v.row().eventType()).as("the event's type still read").isEqualTo("com.example.Placed");
    }

    @Example
    void theRelaysMessageIdHeaderWinsOverAPayloadThatReadsAsAStructuredEvent() {
        Verdict v = check(List.of(header("content-type", "application/cloudevents+json"), header("message-id", "m-9")),
                utf8("{\"specversion\":\"1.0\",\"id\":\"victim-1\",\"type\":\"T\"}"));

        assertThat(v.row().id()).isEqualTo(MessageId.of("m-9"));
    }

    @Example
    void anInvalidMessageIdHeaderIsPoisonEvenBesideAValidCeId() {
        Verdict v = check(List.of(header("message-id", " "), header("ce_id", "evt-10"),
                header("ce_specversion", "1.0")), utf8("{}"));

        assertThat(v).isInstanceOf(Verdict.Poison.class);
        assertThat(((Verdict.Poison) v).reason()).contains("message-id header is not a valid id");
    }

    @Example
    void anEventTypeHeaderWinsOverCeType() {
        Verdict v = check(List.of(header("ce_specversion", "1.0"), header("ce_id", "evt-2"),
                header("ce_type", "com.example.Placed"), header("event-type", "Placed")), utf8("{}"));

        assertThat(v.row().eventType()).isEqualTo("Placed");
    }

    @Example
    void aCeIdWithoutASpecVersionIsNotAnEvent() {
        Verdict v = check(List.of(header("ce_id", "evt-3"), header("message-id", "m-3")), utf8("{}"));

        assertThat(v.row().id()).isEqualTo(MessageId.of("m-3"));
    }

    @Example
    void aBinaryModeEventWhoseIdIsNotAValidIdIsPoison() {
        for (String bad : List.of(" ", "x".repeat(MessageId.MAX_LENGTH + 1))) {
            Verdict v = check(List.of(header("ce_specversion", "1.0"), header("ce_id", bad)), utf8("{}"));

            assertThat(v).isInstanceOf(Verdict.Poison.class);
            assertThat(((Verdict.Poison) v).reason()).contains("the CloudEvents id is not a valid id");
            assertThat(v.row().id()).isEqualTo(IntakeCheck.positionId("orders", 0, 5));
        }
    }

    // ---- structured mode

    @Example
    void aStructuredModeEventIsKnownByItsJsonIdAndType() {
        Verdict v = check(List.of(header("content-type", "application/cloudevents+json; charset=UTF-8")), utf8("""
                {"specversion":"1.0","id":"evt-4","source":"/orders","type":"com.example.Placed",
                 "datacontenttype":"application/json","data":{"id":"not-this","n":[1,2,{"type":"nor-this"}]}}"""));

        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().id()).isEqualTo(MessageId.of("evt-4"));
        assertThat(v.row().eventType()).isEqualTo("com.example.Placed");
    }

    @Example
    void theStructuredContentTypeIsMatchedWithoutRegardToCaseOrParameters() {
        assertThat(CloudEventAttributes.structured("Application/CloudEvents+JSON")).isTrue();
        assertThat(CloudEventAttributes.structured(" application/cloudevents+json ;charset=utf-8")).isTrue();
        assertThat(CloudEventAttributes.structured("application/cloudevents-batch+json")).isFalse();
        assertThat(CloudEventAttributes.structured("application/json")).isFalse();
        assertThat(CloudEventAttributes.structured(null)).isFalse();
    }

    @Example
    void aMalformedStructuredEventIsNotAnEvent() {
        List<String> values = List.of("not json", "[{\"id\":\"evt\"}]", "{\"id\":7}", "{\"id\":null}",
                "{\"ids\":\"x\"}",
                "{\"data\":{\"id\":\"evt\"}}", "{\"specversion\":\"1.0\",", "", "{\"id\"", "\"evt\"");
        for (String value : values) {
            Verdict v = check(List.of(header("content-type", "application/cloudevents+json")), utf8(value));

            assertThat(v).as(value).isInstanceOf(Verdict.Text.class);
            assertThat(v.row().id()).as(value).isEqualTo(IntakeCheck.positionId("orders", 0, 5));
        }
    }

    @Example
    void nestingDeeperThanTheBoundBeforeTheIdIsNotTakenAsAnEvent() {
        String deep = "{\"data\":" + "[".repeat(CloudEventAttributes.MAX_NESTING * 100)
                + "]".repeat(CloudEventAttributes.MAX_NESTING * 100) + ",\"id\":\"evt-6\"}";
        String shallow = "{\"data\":" + "[".repeat(10) + "]".repeat(10) + ",\"id\":\"evt-6\"}";

        assertThat(check(List.of(header("content-type", "application/cloudevents+json")), utf8(deep)).row().id())
                .isEqualTo(IntakeCheck.positionId("orders", 0, 5));
        assertThat(check(List.of(header("content-type", "application/cloudevents+json")), utf8(shallow)).row().id())
                .isEqualTo(MessageId.of("evt-6"));
    }

    @Example
    void anIdReadBeforeTheValueBreaksOffStands() {
        Verdict v = check(List.of(header("content-type", "application/cloudevents+json")),
                utf8("{\"id\":\"evt-7\",\"data\":{\"broken"));

        assertThat(v.row().id()).isEqualTo(MessageId.of("evt-7"));
    }

    @Example
    void aStructuredIdPostgresqlCannotStoreIsPoisonAndATypeItCannotStoreIsDropped() {
        for (String id : List.of("evt\\u0000", "evt\\ud800", "")) {
            Verdict v = check(List.of(header("content-type", "application/cloudevents+json")),
                    utf8("{\"id\":\"" + id + "\"}"));
            assertThat(v).as(id).isInstanceOf(Verdict.Poison.class);
        }
        Verdict v = check(List.of(header("content-type", "application/cloudevents+json")),
                utf8("{\"id\":\"evt-8\",\"type\":\"T\\u0000\"}"));
        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().eventType()).isNull();
    }

    // ---- properties

    @Property(tries = 500)
    void aWellFormedStructuredEventIsKnownByItsIdWhateverItsAttributeOrderAndData(
            @ForAll("ids") String id, @ForAll("attributes") List<Map.Entry<String, Object>> attributes,
            @ForAll("contentTypes") String contentType) throws Exception {
        List<Map.Entry<String, Object>> fields = new ArrayList<>(attributes);
        fields.add(new AbstractMap.SimpleEntry<>("id", id));
        fields.add(new AbstractMap.SimpleEntry<>("type", "com.example.T"));
        Collections.shuffle(fields, new java.util.Random(id.hashCode()));
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> f : fields) {
            json.append(json.length() > 1 ? "," : "").append(JSON.writeValueAsString(f.getKey())).append(':')
                    .append(JSON.writeValueAsString(f.getValue()));
        }
        json.append('}');

        Verdict v = check(List.of(header("content-type", contentType)), utf8(json.toString()));

        assertThat(v).isInstanceOf(Verdict.Text.class);
        assertThat(v.row().id()).isEqualTo(MessageId.of(id));
        assertThat(v.row().eventType()).isEqualTo("com.example.T");
    }

    @Property(tries = 2000)
    void anyValueWithTheStructuredContentTypeGetsAVerdictWithoutThrowing(@ForAll("values") byte[] value) {
        Verdict v = check(List.of(header("content-type", "application/cloudevents+json")), value);

        String id = v.row().id().value();
        assertThat(id).doesNotContain("\0").hasSizeLessThanOrEqualTo(MessageId.MAX_LENGTH);
        assertThat(new String(id.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(id);
        if (v instanceof Verdict.Poison p) {
            assertThat(p.reason()).contains("CloudEvents id");
            assertThat(id).isEqualTo(IntakeCheck.positionId("orders", 0, 5).value());
        }
    }

    @Provide
    Arbitrary<String> ids() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(MessageId.MAX_LENGTH)
                .filter(s -> !s.isBlank() && IntakeCheck.storable(s));
    }

    @Provide
    Arbitrary<String> contentTypes() {
        return Arbitraries.of("application/cloudevents+json", "application/cloudevents+json; charset=UTF-8",
                "APPLICATION/CLOUDEVENTS+JSON");
    }

    @Provide
    Arbitrary<List<Map.Entry<String, Object>>> attributes() {
        Arbitrary<Object> leaf = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(10).map(s -> (Object) s),
                Arbitraries.integers().map(i -> (Object) i), Arbitraries.just(null));
        Arbitrary<Object> data = Arbitraries.oneOf(leaf,
                leaf.list().ofMaxSize(4).map(l -> (Object) l),
                Combinators.combine(Arbitraries.of("id", "type", "x"), leaf).as((k, x) -> {
                    Map<String, Object> m = new java.util.HashMap<>();
                    m.put(k, x);
                    return (Object) List.of(m, Map.of("id", "nested"));
                }));
        return Combinators.combine(Arbitraries.of("specversion", "source", "subject", "time", "data", "x-ext"), data)
                .as((k, v) -> (Map.Entry<String, Object>) new AbstractMap.SimpleEntry<>(k, v))
                .list().ofMaxSize(5).uniqueElements(Map.Entry::getKey);
    }

    @Provide
    Arbitrary<byte[]> values() {
        Arbitrary<String> fragments = Arbitraries.of("{", "}", "[", "]", "\"id\"", ":", ",", "\"evt\"", "\"\"",
                "\"\\u0000\"", "\"\\ud800\"", "7", "null", "\"type\"", " ", "\"" + "x".repeat(300) + "\"");
        return Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(40),
                fragments.list().ofMaxSize(12).map(l -> utf8(String.join("", l))));
    }

    // ---- helpers

    private static Verdict check(List<Header> headers, byte[] value) {
        return IntakeCheck.check(new ReceivedRecord("orders", 0, 5, utf8("k"), headers, value), LIMIT);
    }

    private static Header header(String name, String value) {
        return new Header(name, utf8(value));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
