package dev.dispatcher.app.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Malformed requests, one per row: every one gets a 4xx {@code application/problem+json} naming the problem (the
 * field, where there is one), none a 5xx, and none writes a row (outbox and audit counted through JDBC).
 */
class MalformedRequestsIT extends ApiTestSupport {

    private static final String OK_ID = "0b5c5a8e-3f0e-4c8e-9a7e-4f5f0c1d2e3f";

    /** One malformed request and what the answer must say. */
    record Case(String name, HttpMethod method, String path, String contentType, Map<String, String> headers,
            byte[] body, int status, String field, String detailContains) {

        @Override
        public String toString() {
            return name;
        }
    }

    static Case ingest(String name, String body, int status, String field, String detail) {
        return new Case(name, HttpMethod.POST, "/v1/messages", "application/json", Map.of(), utf8(body), status, field,
                detail);
    }

    static Case batch(String name, String body, int status, String field, String detail) {
        return new Case(name, HttpMethod.POST, "/v1/messages/batch", "application/json", Map.of(), utf8(body), status,
                field, detail);
    }

    static Case operator(String name, HttpMethod method, String path, Map<String, String> headers, String body,
            int status, String field, String detail) {
        // every mutation declares JSON, body or not (JsonOnlyMutations); its refusals are CrossSiteRequestsIT's
        return new Case(name, method, path, body == null && method == HttpMethod.GET ? null : "application/json",
                headers,
                body == null ? null : utf8(body), status, field, detail);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String message(String fields) {
        return "{\"topic\":\"orders\",\"type\":\"OrderPlaced\",\"payload\":{\"a\":1}" + (fields.isEmpty() ? "" : ",")
                + fields + "}";
    }

    static Stream<Case> cases() {
        String longText = "x".repeat(300);
        String manyHeaders = IntStream.range(0, 65).mapToObj(i -> "\"h" + i + "\":\"v\"")
                .collect(Collectors.joining(",", "{", "}"));
        return Stream.of(
                ingest("empty body", "", 400, null, "empty"),
                ingest("not JSON", "{\"topic\":", 400, null, "not valid JSON"),
                ingest("trailing JSON value", message("") + " {}", 400, null, "not valid JSON"),
                ingest("trailing garbage", message("") + "x", 400, null, "not valid JSON"),
                ingest("duplicate field", "{\"topic\":\"a\",\"topic\":\"b\",\"type\":\"t\",\"payload\":1}", 400, null,
                        "not valid JSON"),
                ingest("array instead of object", "[" + message("") + "]", 400, "$", "JSON object"),
                ingest("string instead of object", "\"hello\"", 400, "$", "JSON object"),
                ingest("missing topic", "{\"type\":\"t\",\"payload\":1}", 400, "topic", "required"),
                ingest("blank topic", "{\"topic\":\" \",\"type\":\"t\",\"payload\":1}", 400, "topic", "blank"),
                ingest("topic '.'", "{\"topic\":\".\",\"type\":\"t\",\"payload\":1}", 400, "topic", "Kafka topic"),
                ingest("topic '..'", "{\"topic\":\"..\",\"type\":\"t\",\"payload\":1}", 400, "topic", "Kafka topic"),
                ingest("topic with space", "{\"topic\":\"bad topic\",\"type\":\"t\",\"payload\":1}", 400, "topic",
                        "Kafka topic"),
                ingest("topic of 250 characters", "{\"topic\":\"" + "t".repeat(250) + "\",\"type\":\"t\",\"payload\":1}",
                        400, "topic", "more than 249"),
                ingest("topic not a string", "{\"topic\":5,\"type\":\"t\",\"payload\":1}", 400, "topic", "string"),
                ingest("missing type", "{\"topic\":\"orders\",\"payload\":1}", 400, "type", "required"),
                ingest("type too long", "{\"topic\":\"orders\",\"type\":\"" + longText + "\",\"payload\":1}", 400,
                        "type", "more than 255"),
                ingest("type with NUL", "{\"topic\":\"orders\",\"type\":\"a\\u0000b\",\"payload\":1}", 400, "type",
                        "NUL"),
                ingest("missing payload", "{\"topic\":\"orders\",\"type\":\"t\"}", 400, "payload", "required"),
                ingest("id not a UUID", message("\"id\":\"order-1\""), 400, "id", "UUID"),
                ingest("id a number", message("\"id\":42"), 400, "id", "string"),
                ingest("unknown field", "{\"topic\":\"orders\",\"type\":\"t\",\"paylod\":1}", 400, "paylod",
                        "unknown field"),
                ingest("key too long", message("\"key\":\"" + "k".repeat(1025) + "\""), 400, "key", "more than 1024"),
                ingest("key with NUL", message("\"key\":\"k\\u0000\""), 400, "key", "NUL"),
                ingest("key with unpaired surrogate", message("\"key\":\"k\\ud800\""), 400, "key", "surrogate"),
                ingest("headers an array", message("\"headers\":[\"a\"]"), 400, "headers", "JSON object"),
                ingest("header value a number", message("\"headers\":{\"x-n\":1}"), 400, "headers.x-n", "strings"),
                ingest("reserved header", message("\"headers\":{\"message-id\":\"m\"}"), 400, "headers.message-id",
                        "reserved"),
                ingest("CloudEvents id header",
                        message("\"headers\":{\"ce_id\":\"victim-1\",\"ce_specversion\":\"1.0\"}"),
                        400, "headers.ce_id", "'ce_id' is reserved"),
                ingest("CloudEvents header in capitals", message("\"headers\":{\"x-ok\":\"1\",\"CE_SOURCE\":\"/x\"}"),
                        400, "headers.CE_SOURCE", "reserved"),
                ingest("dead-letter header", message("\"headers\":{\"dispatcher-attempts\":\"1\"}"), 400,
                        "headers.dispatcher-attempts", "reserved"),
                batch("batch item with a CloudEvents id header", "[" + message("") + ","
                        + message("\"headers\":{\"ce_id\":\"victim-1\"}") + "]", 400, "[1].headers.ce_id",
                        "reserved"),
                ingest("too many headers", message("\"headers\":" + manyHeaders), 400, "headers", "at most 64"),
                ingest("header value too long", message("\"headers\":{\"x\":\"" + "v".repeat(4097) + "\"}"), 400,
                        "headers.x", "more than 4096"),
                ingest("content type not a media type", message("\"contentType\":\"not a type\""), 400, "contentType",
                        "media type"),
                ingest("content type wildcard", message("\"contentType\":\"*/*\""), 400, "contentType", "wildcard"),
                ingest("binary payload not a string", "{\"topic\":\"orders\",\"type\":\"t\",\"contentType\":"
                        + "\"application/octet-stream\",\"payload\":{\"a\":1}}", 400, "payload", "base64"),
                ingest("binary payload not base64", "{\"topic\":\"orders\",\"type\":\"t\",\"contentType\":"
                        + "\"application/octet-stream\",\"payload\":\"%%%\"}", 400, "payload", "base64"),
                ingest("correlation id a number", message("\"correlationId\":7"), 400, "correlationId", "string"),
                ingest("payload over the limit", message("\"key\":\"big\"").replace("{\"a\":1}",
                        "\"" + "p".repeat((int) MAX_PAYLOAD) + "\""), 413, "payload", "max-payload-size"),
                ingest("body over the limit", "\"" + "b".repeat((int) (4 * MAX_PAYLOAD + 64 * 1024 + 10)) + "\"",
                        413, "$", "larger than"),
                new Case("text/plain body", HttpMethod.POST, "/v1/messages", "text/plain", Map.of(),
                        utf8(message("")), 415, null, "text/plain"),
                new Case("no content type", HttpMethod.POST, "/v1/messages", null, Map.of(), utf8(message("")), 415,
                        null, null),
                batch("batch not an array", message(""), 400, "$", "JSON array"),
                batch("empty batch", "[]", 400, "$", "at least one"),
                batch("batch over max-batch-size", "[" + String.join(",", java.util.Collections.nCopies(MAX_BATCH + 1,
                        message(""))) + "]", 413, "$", "max-batch-size"),
                batch("token bomb batch", "[" + "{},".repeat(60_000) + "{}]", 413, "$", "max-batch-size"),
                ingest("payload nested too deep", message("").replace("{\"a\":1}", "[".repeat(501) + "]".repeat(501)),
                        413, "$", "nesting"),
                batch("batch item with a bad topic", "[" + message("") + ",{\"topic\":\"a b\",\"type\":\"t\","
                        + "\"payload\":1}]", 400, "[1].topic", "Kafka topic"),
                batch("batch item not an object", "[1]", 400, "[0]", "JSON object"),
                ingest("deliverAt and delay together", message("\"deliverAt\":\"2030-01-01T00:00:00Z\","
                        + "\"delay\":\"PT1M\""), 400, "delay", "not both"),
                ingest("deliverAt not an instant", message("\"deliverAt\":\"tomorrow\""), 400, "deliverAt",
                        "ISO-8601 instant"),
                ingest("deliverAt in the past", message("\"deliverAt\":\"2020-01-01T00:00:00Z\""), 400,
                        "deliverAt", "in the past"),
                ingest("delay beyond max-delay", message("\"delay\":\"P8D\""), 400, "delay", "at most PT168H"),
                ingest("delay negative", message("\"delay\":\"-PT5S\""), 400, "delay", "negative"),
                ingest("delay not a duration", message("\"delay\":\"5 minutes\""), 400, "delay",
                        "ISO-8601 duration"),
                ingest("delay a number", message("\"delay\":300"), 400, "delay", "must be a string"),
                batch("batch item delayed too far", "[" + message("") + "," + message("\"delay\":\"P8D\"") + "]",
                        400, "[1].delay", "at most"),
                batch("batch trailing tokens", "[" + message("") + "]]", 400, null, "not valid JSON"),
                operator("message id not a UUID", HttpMethod.GET, "/v1/messages/not-a-uuid", Map.of(), null, 400, "id",
                        "UUID"),
                operator("list by inbox status", HttpMethod.GET, "/v1/messages?status=COMPLETED", Map.of(), null, 400,
                        "status", "one of"),
                operator("list limit zero", HttpMethod.GET, "/v1/messages?limit=0", Map.of(), null, 400, "limit",
                        "between 1 and 1000"),
                operator("list limit not a number", HttpMethod.GET, "/v1/messages?limit=ten", Map.of(), null, 400,
                        "limit", "integer"),
                operator("list cursor forged", HttpMethod.GET, "/v1/messages?cursor=bm9wZQ", Map.of(), null, 400,
                        "cursor", "nextCursor"),
                operator("replay without If-Match", HttpMethod.POST, "/v1/messages/" + OK_ID + "/replay", Map.of(),
                        null, 428, "If-Match", "If-Match"),
                operator("replay with a weak If-Match", HttpMethod.POST, "/v1/messages/" + OK_ID + "/replay",
                        Map.of("If-Match", "W/\"1\""), null, 400, "If-Match", "strong entity tag"),
                operator("dead-letter with If-Match *", HttpMethod.POST, "/v1/messages/" + OK_ID + "/dead-letter",
                        Map.of("If-Match", "*"), null, 400, "If-Match", "strong entity tag"),
                operator("bulk replay limit too high", HttpMethod.POST, "/v1/dead-letters/replay", Map.of(),
                        "{\"limit\":5000}", 400, "limit", "between 1 and 1000"),
                operator("bulk replay unknown filter", HttpMethod.POST, "/v1/dead-letters/replay", Map.of(),
                        "{\"status\":\"DELIVERED\"}", 400, "status", "unknown filter"),
                operator("bulk replay malformed filter", HttpMethod.POST, "/v1/dead-letters/replay", Map.of(),
                        "{\"topic\":", 400, null, "not valid JSON"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isRefusedWithAProblemAndWritesNothing(Case c) {
        long rowsBefore = outboxRows();
        long auditBefore = count("SELECT count(*) FROM dispatch_audit");
        WebTestClient client = c.path().startsWith("/v1/messages") && c.method() == HttpMethod.POST
                && !c.path().contains("/replay") && !c.path().contains("/dead-letter") ? producer() : operator();

        WebTestClient.RequestBodySpec request = client.method(c.method()).uri(c.path());
        c.headers().forEach((name, value) -> request.header(name, value));
        if (c.contentType() != null) {
            request.header("Content-Type", c.contentType());
        }
        WebTestClient.RequestHeadersSpec<?> ready = c.body() == null ? request : request.bodyValue(c.body());
        EntityExchangeResult<Map> result = ready.exchange()
                .expectStatus().isEqualTo(c.status())
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody(Map.class).returnResult();

        @SuppressWarnings("unchecked")
        Map<String, Object> problem = result.getResponseBody();
        assertThat(problem.get("status")).as(c.name()).isEqualTo(c.status());
        assertThat((String) problem.get("detail")).as(c.name()).isNotBlank();
        if (c.field() != null) {
            assertThat(problem.get("field")).as(c.name()).isEqualTo(c.field());
        }
        if (c.detailContains() != null) {
            assertThat((String) problem.get("detail")).as(c.name()).contains(c.detailContains());
        }
        assertThat(outboxRows()).as("rows after " + c.name()).isEqualTo(rowsBefore);
        assertThat(count("SELECT count(*) FROM dispatch_audit")).as("audit after " + c.name()).isEqualTo(auditBefore);
    }

    @org.junit.jupiter.api.Test
    void thereAreAtLeastThirtyCases() {
        assertThat(cases().count()).isGreaterThanOrEqualTo(30);
        assertThat(cases().map(Case::name).distinct().count()).isEqualTo(cases().count());
        assertThat(UUID.fromString(OK_ID)).isNotNull();
    }
}
