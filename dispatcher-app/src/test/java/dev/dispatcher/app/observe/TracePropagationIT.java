package dev.dispatcher.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dispatcher.app.OpsTestSupport;
import dev.dispatcher.app.WebhookSink;
import dev.dispatcher.testkit.TestServers;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

/**
 * One message's trace, read from the spans the service exported (an in-memory exporter) and from what reached
 * Kafka and the webhook: client span -> ingest request span -> publish span -> inbox handling span -> webhook call.
 */
class TracePropagationIT extends OpsTestSupport {

    @Test
    void aMessageIsTracedFromIngestThroughPublishToTheInboxHandlerAndItsWebhook() throws Exception {
        String traceId = hex(16);
        String clientSpanId = hex(8);
        UUID id = UUID.randomUUID();
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .header("traceparent", "00-" + traceId + "-" + clientSpanId + "-01")
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + TRACED_TOPIC + "\",\"key\":\"trace\","
                        + "\"type\":\"Traced\",\"payload\":{\"n\":1}}")
                .exchange()
                .expectStatus().isAccepted();

        WebhookSink.Request webhook = WEBHOOK.await(id.toString(), Duration.ofSeconds(60)).orElseThrow();
        SpanData ingest = awaitSpan(traceId, SpanKind.SERVER, null);
        SpanData publish = awaitSpan(traceId, SpanKind.PRODUCER, id.toString());
        SpanData handling = awaitSpan(traceId, SpanKind.CONSUMER, id.toString());

        assertThat(ingest.getParentSpanId()).as("the ingest span continues the client's trace").isEqualTo(clientSpanId);
        assertThat(ingest.getName()).contains("/v1/messages");
        assertThat(text("SELECT headers->>'traceparent' FROM outbox_message WHERE id = ?", id))
                .as("the stored traceparent is the ingest span's")
                .isEqualTo("00-" + traceId + "-" + ingest.getSpanId() + "-01");
        assertThat(publish.getParentSpanId()).as("publish is a child of the ingest").isEqualTo(ingest.getSpanId());
        assertThat(publish.getName()).isEqualTo("dispatcher publish");
        assertThat(recordTraceparent(id)).as("the record carries the publish span")
                .isEqualTo("00-" + traceId + "-" + publish.getSpanId() + "-01");
        assertThat(handling.getParentSpanId()).as("the inbox handling is a child of the publish")
                .isEqualTo(publish.getSpanId());
        assertThat(handling.getName()).isEqualTo("dispatcher inbox handle");
        assertThat(webhook.header("traceparent")).as("the webhook call carries the handling span")
                .isEqualTo("00-" + traceId + "-" + handling.getSpanId() + "-01");
    }

    @Test
    void anUnsampledTraceIsHandedOnAsStoredAndNoSpanIsStartedForIt() throws Exception {
        String traceId = hex(16);
        UUID id = UUID.randomUUID();
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .header("traceparent", "00-" + traceId + "-" + hex(8) + "-00")
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + TRACED_TOPIC + "\",\"key\":\"trace\","
                        + "\"type\":\"Untraced\",\"payload\":{\"n\":2}}")
                .exchange()
                .expectStatus().isAccepted();

        WebhookSink.Request webhook = WEBHOOK.await(id.toString(), Duration.ofSeconds(60)).orElseThrow();
        String stored = text("SELECT headers->>'traceparent' FROM outbox_message WHERE id = ?", id);
        assertThat(stored).as("the ingest keeps the client's trace, not sampled").startsWith("00-" + traceId + "-")
                .endsWith("-00");
        String published = await().atMost(Duration.ofSeconds(30)).until(() -> recordTraceparent(id),
                java.util.Objects::nonNull);
        assertThat(published).as("the record carries the stored context: no publish span was started")
                .isEqualTo(stored);
        assertThat(webhook.header("traceparent")).as("nor an inbox handling span").isEqualTo(stored);
        assertThat(spans.getFinishedSpanItems()).noneMatch(s -> s.getTraceId().equals(traceId));
    }

    @Test
    void aProducersOwnTraceparentIsKeptAsTheParentOfThePublish() {
        String traceId = hex(16);
        String producerSpanId = hex(8);
        String traceparent = "00-" + traceId + "-" + producerSpanId + "-01";
        UUID id = UUID.randomUUID();
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"id\":\"" + id + "\",\"topic\":\"" + PLAIN_TOPIC + "\",\"type\":\"Traced\","
                        + "\"payload\":1,\"headers\":{\"traceparent\":\"" + traceparent + "\"}}")
                .exchange()
                .expectStatus().isAccepted();

        SpanData publish = awaitSpan(traceId, SpanKind.PRODUCER, id.toString());
        assertThat(publish.getParentSpanId()).isEqualTo(producerSpanId);
        assertThat(text("SELECT headers->>'traceparent' FROM outbox_message WHERE id = ?", id)).isEqualTo(traceparent);
    }

    @Test
    void aRepeatFromAnotherTraceIsStillTheSameMessage() {
        UUID id = UUID.randomUUID();
        String body = "{\"id\":\"" + id + "\",\"topic\":\"" + PLAIN_TOPIC + "\",\"type\":\"Repeat\",\"payload\":{}}";
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .header("traceparent", "00-" + hex(16) + "-" + hex(8) + "-01")
                .bodyValue(body).exchange().expectStatus().isAccepted();
        // the retry's ingest span (so the traceparent the service would store) differs: still a duplicate, not 409
        as(PRODUCER).post().uri("/v1/messages").contentType(MediaType.APPLICATION_JSON)
                .header("traceparent", "00-" + hex(16) + "-" + hex(8) + "-01")
                .bodyValue(body).exchange().expectStatus().isOk();
        as(PRODUCER).post().uri("/v1/messages/batch").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("[" + body + "]").exchange()
                .expectStatus().isAccepted()
                .expectBody().jsonPath("$.results[0].result").isEqualTo("duplicate");
        assertThat(count("SELECT count(*) FROM outbox_message WHERE id = ?", id)).isEqualTo(1);
    }

    private SpanData awaitSpan(String traceId, SpanKind kind, String messageId) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(
                () -> find(traceId, kind, messageId), Optional::isPresent).orElseThrow();
    }

    private Optional<SpanData> find(String traceId, SpanKind kind, String messageId) {
        return spans.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId) && s.getKind() == kind)
                .filter(s -> messageId == null || messageId.equals(s.getAttributes().get(
                        io.opentelemetry.api.common.AttributeKey.stringKey("messaging.message.id"))))
                .findFirst();
    }

    private static String recordTraceparent(UUID id) {
        List<ConsumerRecord<String, byte[]>> records = TestServers.kafka().consume(TRACED_TOPIC, 1_000,
                Duration.ofSeconds(5));
        return records.stream()
                .filter(r -> id.toString().equals(header(r, "message-id")))
                .map(r -> header(r, "traceparent"))
                .findFirst().orElse(null);
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        random[0] |= 1; // never all zeros (an invalid id)
        return HexFormat.of().formatHex(random);
    }
}
