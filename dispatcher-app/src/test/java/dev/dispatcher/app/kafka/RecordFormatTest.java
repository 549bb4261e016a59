package dev.dispatcher.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dispatcher.app.store.ClaimedOutboxMessage;
import dev.dispatcher.domain.Lease;
import dev.dispatcher.domain.LeasedMessage;
import dev.dispatcher.domain.MessageHeaders;
import dev.dispatcher.domain.MessageId;
import dev.dispatcher.domain.MessageStatus;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The exact record of one row in each {@link RecordFormat}. */
class RecordFormatTest {

    static final String ID = "0b6b3f3c-54b1-4f4e-9d4e-8a0c6f2d1e77";
    static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    static final Instant CREATED = Instant.parse("2026-03-01T10:15:30.123456Z");
    static final URI SOURCE = URI.create("/orders");

    /** A keyed JSON row with every optional column set and stored headers, one of which spoofs a reserved name. */
    static ClaimedOutboxMessage jsonRow() {
        Map<String, String> stored = new LinkedHashMap<>();
        stored.put("traceparent", TRACEPARENT);
        stored.put("tenant", "acme");
        stored.put("message-id", "spoofed");
        return row("order-7", "{\"total\":12.5,\"note\":\"caf\u00e9 \\\"x\\\"\"}".getBytes(StandardCharsets.UTF_8),
                "application/json", stored, "corr-1", "cause-1");
    }

    static ClaimedOutboxMessage row(String key, byte[] payload, String contentType, Map<String, String> headers,
            String correlationId, String causationId) {
        LeasedMessage leased = new LeasedMessage(MessageId.of(UUID.fromString(ID)),
                new Lease("w", UUID.randomUUID(), CREATED.plusSeconds(30)), 0, 1, MessageStatus.PENDING, key, 1);
        return new ClaimedOutboxMessage(leased, "orders", "OrderPlaced", payload, contentType, headers, correlationId,
                causationId, CREATED, false);
    }

    @Test
    void plainRecordsCarryDispatchersHeadersThenTheStoredOnes() {
        OutboundRecord r = RecordFormat.plain().toRecord(jsonRow());

        assertThat(r.topic()).isEqualTo("orders");
        assertThat(r.key()).isEqualTo("order-7");
        assertThat(r.value()).isEqualTo(jsonRow().payload());
        assertThat(List.copyOf(r.headers().keySet()).subList(0, 5)).containsExactly("message-id", "event-type",
                "content-type", "correlation-id", "causation-id");
        assertThat(r.headers()).containsExactlyInAnyOrderEntriesOf(Map.of("message-id", ID,
                "event-type", "OrderPlaced", "content-type", "application/json", "correlation-id", "corr-1",
                "causation-id", "cause-1", "traceparent", TRACEPARENT, "tenant", "acme"));
    }

    @Test
    void binaryModePutsThePayloadInTheValueAndEveryAttributeInACeHeader() {
        OutboundRecord r = RecordFormat.cloudEventsBinary(SOURCE).toRecord(jsonRow());

        assertThat(r.key()).isEqualTo("order-7");
        assertThat(r.value()).isEqualTo(jsonRow().payload());
        assertThat(List.copyOf(r.headers().keySet()).subList(0, 11)).containsExactly("ce_specversion", "ce_id",
                "ce_source", "ce_type", "ce_time", "ce_subject", "content-type", "ce_correlationid", "ce_causationid",
                "ce_traceparent", "message-id");
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("ce_specversion", "1.0");
        expected.put("ce_id", ID);
        expected.put("ce_source", "/orders");
        expected.put("ce_type", "OrderPlaced");
        expected.put("ce_time", "2026-03-01T10:15:30.123456Z");
        expected.put("ce_subject", "order-7");
        expected.put("content-type", "application/json");
        expected.put("ce_correlationid", "corr-1");
        expected.put("ce_causationid", "cause-1");
        expected.put("ce_traceparent", TRACEPARENT);
        expected.put("message-id", ID);
        expected.put("traceparent", TRACEPARENT);
        expected.put("tenant", "acme");
        assertThat(r.headers()).containsExactlyInAnyOrderEntriesOf(expected);
        // the inbox recognises a binary-mode event by these two headers (MessageHeaders is its contract)
        assertThat(r.headers()).containsKeys(MessageHeaders.CE_ID, MessageHeaders.CE_SPECVERSION,
                MessageHeaders.CE_TYPE);
    }

    @Test
    void binaryModeLeavesOutTheAttributesARowDoesNotHave() {
        OutboundRecord r = RecordFormat.cloudEventsBinary(SOURCE).toRecord(row(null, new byte[] {1, 2},
                "application/octet-stream", Map.of(), null, null));

        assertThat(r.key()).isNull();
        assertThat(r.headers()).containsExactly(Map.entry("ce_specversion", "1.0"), Map.entry("ce_id", ID),
                Map.entry("ce_source", "/orders"), Map.entry("ce_type", "OrderPlaced"),
                Map.entry("ce_time", "2026-03-01T10:15:30.123456Z"),
                Map.entry("content-type", "application/octet-stream"), Map.entry("message-id", ID));
    }

    @Test
    void structuredModeWritesTheEventWithAJsonPayloadAsItsData() {
        OutboundRecord r = RecordFormat.cloudEventsStructured(SOURCE).toRecord(jsonRow());

        assertThat(r.key()).isEqualTo("order-7");
        assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"specversion\":\"1.0\",\"id\":\"" + ID
                + "\",\"source\":\"/orders\",\"type\":\"OrderPlaced\",\"time\":\"2026-03-01T10:15:30.123456Z\","
                + "\"subject\":\"order-7\",\"datacontenttype\":\"application/json\",\"correlationid\":\"corr-1\","
                + "\"causationid\":\"cause-1\",\"traceparent\":\"" + TRACEPARENT + "\","
                + "\"data\":{\"total\":12.5,\"note\":\"caf\u00e9 \\\"x\\\"\"}}");
        assertThat(List.copyOf(r.headers().keySet()).subList(0, 2)).containsExactly("content-type", "message-id");
        assertThat(r.headers()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "content-type", "application/cloudevents+json; charset=UTF-8", "message-id", ID,
                "traceparent", TRACEPARENT, "tenant", "acme"));
    }

    @Test
    void structuredModeWritesAPayloadThatIsNotJsonInBase64() {
        byte[] bytes = {0, 1, 2, (byte) 0xff};

        assertThat(structured(bytes, "application/octet-stream")).isEqualTo(event("application/octet-stream")
                + ",\"data_base64\":\"AAEC/w==\"}");
        // JSON by its content type but not one JSON value: base64 too, so the event stays valid JSON
        assertThat(structured("{\"a\":".getBytes(StandardCharsets.UTF_8), "application/json"))
                .isEqualTo(event("application/json") + ",\"data_base64\":\"eyJhIjo=\"}");
        // a content type the CloudEvents SDK does not read data as JSON for (a dotted +json subtype)
        assertThat(structured("{}".getBytes(StandardCharsets.UTF_8), "application/vnd.shop.v1+json"))
                .isEqualTo(event("application/vnd.shop.v1+json") + ",\"data_base64\":\"e30=\"}");
        assertThat(structured("[1]".getBytes(StandardCharsets.UTF_8), "application/vnd+json; charset=utf-8"))
                .isEqualTo(event("application/vnd+json; charset=utf-8") + ",\"data\":[1]}");
        assertThat(structured(new byte[0], "application/json")).isEqualTo(event("application/json") + "}");
    }

    @Test
    void onlyExactlyOneUtf8JsonValueCountsAsJson() {
        for (String json : List.of("1", " {\"a\":[1,2,{\"b\":null}]} \n", "\"caf\u00e9\"", "true", "[]")) {
            assertThat(StructuredCloudEvents.isOneJsonValue(json.getBytes(StandardCharsets.UTF_8))).as(json).isTrue();
        }
        for (String text : List.of("", " ", "1 2", "{\"a\":1}}", "{\"a\":1} x", "nul", "{'a':1}", "[1,]", "NaN",
                "{\"a\":\"\u0001\"}", "\ufeff{}")) {
            assertThat(StructuredCloudEvents.isOneJsonValue(text.getBytes(StandardCharsets.UTF_8))).as(text).isFalse();
        }
        assertThat(StructuredCloudEvents.isOneJsonValue(new byte[] {'"', (byte) 0xff, '"'})).isFalse();
        assertThat(StructuredCloudEvents.isOneJsonValue(new byte[] {'"', (byte) 0xc3, '"'})).isFalse();
        assertThat(StructuredCloudEvents.isOneJsonValue("{}".getBytes(StandardCharsets.UTF_16LE))).isFalse();
        assertThat(StructuredCloudEvents.isOneJsonValue("{}".getBytes(StandardCharsets.UTF_16BE))).isFalse();
    }

    private static String structured(byte[] payload, String contentType) {
        return new String(RecordFormat.cloudEventsStructured(SOURCE).toRecord(row(null, payload, contentType,
                Map.of(), null, null)).value(), StandardCharsets.UTF_8);
    }

    /** The attributes of an unkeyed row without extensions, the object left open. */
    private static String event(String contentType) {
        return "{\"specversion\":\"1.0\",\"id\":\"" + ID + "\",\"source\":\"/orders\",\"type\":\"OrderPlaced\","
                + "\"time\":\"2026-03-01T10:15:30.123456Z\",\"datacontenttype\":\"" + contentType + "\"";
    }
}
